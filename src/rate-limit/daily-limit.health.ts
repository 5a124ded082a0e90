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
 * The health of the daily counters, decided here only: `ok` while they are where they are
 * configured to be, `degraded` while a Redis-backed instance has fallen back to its own memory (it
 * serves, but lets each client a budget of its own). Readiness means "can serve", so a degraded
 * instance stays ready: a Redis outage must not leave a load balancer without backends. Operators
 * who prefer strict sharing to availability set READINESS_REQUIRES_SHARED_COUNTERS. A clock far
 * from Redis's shows in `dailyLimit.clockOffsetSeconds` and changes neither status nor readiness
 * (RedisClockOffset says why). The counters' gauges are in daily-limit.metrics.ts.
 */
@Injectable()
export class DailyLimitHealthIndicator {
  private readonly requireShared: boolean;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly storage: DailyLimitStorage,
    config: ConfigService<Environment, true>,
  ) {
    this.requireShared = config.get('READINESS_REQUIRES_SHARED_COUNTERS', { infer: true });
  }

  health(): DailyLimitHealth {
    const dailyLimit = this.storage.state();
    const degraded = dailyLimit.store === 'redis' && !dailyLimit.shared;
    return { status: degraded ? 'degraded' : 'ok', dailyLimit };
  }

  /** The readiness check (terminus). */
  check(key: string): HealthIndicatorResult {
    const { status, dailyLimit } = this.health();
    const session = this.indicators.check(key);
    if (status === 'ok' || !this.requireShared) return session.up({ ...dailyLimit });
    const since = dailyLimit.since ? ` since ${dailyLimit.since}` : '';
    return session.down({ ...dailyLimit, reason: `Redis unavailable${since}: counting in memory` });
  }
}
