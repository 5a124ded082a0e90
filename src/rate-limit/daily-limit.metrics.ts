import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { DailyLimitStorage } from './daily-limit.storage';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';

/** The daily counters' gauges, read at scrape time: nothing per request. */
@Injectable()
export class DailyLimitGauges implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly storage: DailyLimitStorage,
    private readonly memory: MemoryDailyLimitStorage,
  ) {}

  onModuleInit(): void {
    const { storage, memory } = this;
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
    this.metrics.createGauge({
      name: 'daily_limit_clock_offset_seconds',
      help: "This instance's clock minus the Redis server's (TIME, less half the round trip), in seconds, as last measured (every 30 s); no sample with the memory store or before the first measurement.",
      labelNames: ['reference'],
      collect() {
        const offset = storage.clockOffset();
        this.reset();
        if (offset !== undefined) this.set({ reference: 'redis' }, offset / 1000);
      },
    });
    this.metrics.createGauge({
      name: 'daily_limit_memory_keys',
      help: "Today's in-memory counters: one per client counted exactly, up to MAX_TRACKED_CLIENTS.",
      labelNames: ['kind'],
      collect() {
        this.set({ kind: 'client' }, memory.trackedClients);
      },
    });
    this.metrics.createGauge({
      name: 'daily_limit_overflow_saturation',
      help: "Share of the cells of today's sketch of clients past MAX_TRACKED_CLIENTS at the limit (0 to 1); a new client is refused at once with about its 8th power.",
      collect() {
        this.set(memory.overflowSaturation);
      },
    });
  }
}
