import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Gauge, GaugeConfiguration, Registry } from 'prom-client';
import { HttpMetrics } from './http-metrics';

/**
 * The application's Prometheus registry (its own, not prom-client's global one, so several
 * applications in one process never clash): Node's default process metrics, the HTTP metrics, and
 * whatever other modules register, such as the state of the rate-limit store.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly http = new HttpMetrics(this.registry);

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Registers a gauge in this registry. Give it a `collect()` to read a state when Prometheus
   * scrapes (nothing to update per request), e.g. `collect() { this.set(storage.state().shared ? 1 : 0) }`
   * (see src/rate-limit/daily-limit.metrics.ts).
   */
  createGauge<T extends string>(configuration: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return new Gauge<T>({ ...configuration, registers: [this.registry] });
  }

  /** The exposition text, in the registry's content type (`contentType`). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
