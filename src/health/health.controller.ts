import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { DailyLimitState, DailyLimitStorage } from '../rate-limit/daily-limit.storage';

export interface HealthResponse {
  /** `degraded`: serving, but counting in memory because Redis is unavailable. */
  status: 'ok' | 'degraded';
  dailyLimit: DailyLimitState;
}

/**
 * Whether the instance serves, and where its daily counters are. For operators and load
 * balancers, so not counted against the limit and not part of the public API document.
 */
@ApiExcludeController()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(private readonly storage: DailyLimitStorage) {}

  @Get()
  check(): HealthResponse {
    const dailyLimit = this.storage.state();
    const degraded = dailyLimit.store === 'redis' && !dailyLimit.shared;
    return { status: degraded ? 'degraded' : 'ok', dailyLimit };
  }
}
