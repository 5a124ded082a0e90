import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Gauge, GaugeConfiguration, Registry } from 'prom-client';
import { httpMetrics } from './http-metrics';

/** Its own registry, not prom-client's global one, so applications in one process never clash. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly recordHttp = httpMetrics(this.registry);

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Give it a `collect()` to read a state per scrape (see rate-limit/daily-limit.metrics.ts). */
  createGauge<T extends string>(configuration: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return new Gauge<T>({ ...configuration, registers: [this.registry] });
  }
}
