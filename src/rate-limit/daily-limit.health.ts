import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { Environment } from '../config/environment';
import { DailyLimitState, DailyLimitStorage } from './daily-limit.storage';

/** GET /health's body. */
export interface DailyLimitHealth {
  /** `degraded`: serving, but counting in memory because Redis is unavailable. */
  status: 'ok' | 'degraded';
  dailyLimit: DailyLimitState;
}

/**
 * A degraded instance (Redis down, counting in memory) stays ready: a Redis outage must not leave
 * a load balancer without backends (READINESS_REQUIRES_SHARED_COUNTERS opts out). Clock skew
 * changes neither status nor readiness (RedisClockOffset says why).
 */
@Injectable()
export class DailyLimitHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly storage: DailyLimitStorage,
    private readonly config: ConfigService<Environment, true>,
  ) {}

  health(): DailyLimitHealth {
    const dailyLimit = this.storage.state();
    const degraded = dailyLimit.store === 'redis' && !dailyLimit.shared;
    return { status: degraded ? 'degraded' : 'ok', dailyLimit };
  }

  /** The readiness check (terminus). */
  check(key: string): HealthIndicatorResult {
    const { status, dailyLimit } = this.health();
    const session = this.indicators.check(key);
    const requireShared = this.config.get('READINESS_REQUIRES_SHARED_COUNTERS', { infer: true });
    if (status === 'ok' || !requireShared) return session.up({ ...dailyLimit });
    const since = dailyLimit.since ? ` since ${dailyLimit.since}` : '';
    return session.down({ ...dailyLimit, reason: `Redis unavailable${since}: counting in memory` });
  }
}
