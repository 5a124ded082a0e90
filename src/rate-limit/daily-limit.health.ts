import { Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { Environment } from '../config/environment';
import { MetricsService } from '../metrics/metrics.service';
import { DailyLimitState, DailyLimitStorage } from './daily-limit.storage';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';

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
 * who prefer strict sharing to availability set READINESS_REQUIRES_SHARED_COUNTERS. Also exported as the gauges
 * `daily_limit_store_shared{store}` (1 while shared) and `daily_limit_memory_keys{kind}`, read at
 * scrape time: nothing per request.
 */
@Injectable()
export class DailyLimitHealthIndicator implements OnModuleInit {
  private readonly requireShared: boolean;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly storage: DailyLimitStorage,
    private readonly metrics: MetricsService,
    private readonly memory: MemoryDailyLimitStorage,
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

  onModuleInit(): void {
    const storage = this.storage;
    this.metrics.createGauge({
      name: 'daily_limit_store_shared',
      help: 'Whether the daily counters are shared by every instance (1) or kept in memory (0).',
      labelNames: ['store'],
      collect() {
        const state = storage.state();
        this.reset();
        this.set({ store: state.store }, state.shared ? 1 : 0);
      },
    });
    const memory = this.memory;
    this.metrics.createGauge({
      name: 'daily_limit_memory_keys',
      help: "Today's in-memory counters: one per client, or per wider prefix once MAX_TRACKED_CLIENTS is reached (widened).",
      labelNames: ['kind'],
      collect() {
        this.set({ kind: 'client' }, memory.trackedClients - memory.widenedKeys);
        this.set({ kind: 'widened' }, memory.widenedKeys);
      },
    });
  }
}
