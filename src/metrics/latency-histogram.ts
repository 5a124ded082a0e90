import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string | number>;

/** One sample of the exposition, as prom-client's Histogram gives it from `get()`. */
interface Sample {
  metricName: string;
  labels: Labels;
  value: number;
  /** prom-client's Histogram lists `null` on each bucket when it keeps no exemplars, as here. */
  exemplar?: null;
}

/**
 * One labelled series of a LatencyHistogram. `observe` is a search of the bounds and three
 * additions: no label hashing, no objects, no number made into a key (prom-client's Histogram does
 * each on every `observe`: bench/README.md, "Where the time goes").
 */
export class HistogramSeries {
  /** Per bucket, the observations above the bound before it and at most its own; the last, +Inf. */
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly labels: Readonly<Labels>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]) bucket += 1;
    this.counts[bucket] += 1;
    this.sum += value;
    this.count += 1;
  }

  /** Its samples: the cumulative buckets, `+Inf`, `_sum` and `_count`, in prom-client's order. */
  samples(name: string): Sample[] {
    const bucketName = `${name}_bucket`;
    let below = 0;
    const samples: Sample[] = this.bounds.map((le, bucket) => {
      below += this.counts[bucket];
      return {
        metricName: bucketName,
        labels: { le, ...this.labels },
        value: below,
        exemplar: null,
      };
    });
    samples.push(
      {
        metricName: bucketName,
        labels: { le: '+Inf', ...this.labels },
        value: this.count,
        exemplar: null,
      },
      { metricName: `${name}_sum`, labels: { ...this.labels }, value: this.sum },
      { metricName: `${name}_count`, labels: { ...this.labels }, value: this.count },
    );
    return samples;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** What a LatencyHistogram is made of: prom-client's names, and the registry it is exposed in. */
interface LatencyHistogramConfiguration {
  name: string;
  help: string;
  buckets: readonly number[];
  registry: Registry;
}

/**
 * A histogram exposed in a prom-client registry, written as prom-client's Histogram writes one,
 * sample for sample (latency-histogram.spec.ts), for the one observation every answer makes. Its
 * callers hold their series (`series(labels)`, made once per label set) and observe straight into
 * it. The registry reads a metric through `name`, `help`, `type`, `get()` and `reset()`
 * (prom-client's lib/registry.js); its typing names only prom-client's own classes, hence the cast
 * where it is registered.
 */
export class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  /** Every series, in the order made, as prom-client lists them. */
  private readonly all: HistogramSeries[] = [];

  constructor({ name, help, buckets, registry }: LatencyHistogramConfiguration) {
    this.name = name;
    this.help = help;
    this.bounds = [...buckets].sort((a, b) => a - b);
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series for `labels`: the caller keeps it, one per label set. */
  series(labels: Readonly<Labels>): HistogramSeries {
    const series = new HistogramSeries(labels, this.bounds);
    this.all.push(series);
    return series;
  }

  /** What prom-client's Histogram gives from `get()`: the registry formats it. */
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    values: Sample[];
    aggregator: string;
  }> {
    const values = this.all.flatMap((series) => series.samples(this.name));
    const { name, help, type, aggregator } = this;
    return Promise.resolve({ name, help, type, values, aggregator });
  }

  /** The registry's `resetMetrics()`: every series back to zero (they stay listed). */
  reset(): void {
    this.all.forEach((series) => series.reset());
  }
}
