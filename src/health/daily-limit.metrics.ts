import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { DailyLimitStorage } from '../rate-limit/daily-limit.storage';

/**
 * `daily_limit_store_shared{store}`: 1 while this instance's daily counters are shared (always 0
 * with the in-memory store), 0 while a Redis store has fallen back to memory. Read at scrape time,
 * so it costs nothing per request.
 */
@Injectable()
export class DailyLimitMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly storage: DailyLimitStorage,
  ) {}

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
  }
}
