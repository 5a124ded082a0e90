import autocannon from 'autocannon';
import type { LoadOptions, LoadSummary } from './load';

/**
 * The load generator, one process for the whole run (pinned by load.ts): it takes one LoadOptions
 * per IPC message, runs autocannon programmatically and answers with a LoadSummary. Latency is
 * recorded here in 10 µs buckets for every answer, because autocannon's own histogram counts
 * whole milliseconds and, by default, 2xx answers only.
 */
const BUCKETS_PER_MS = 100;
const MAX_BUCKET = 10_000 * BUCKETS_PER_MS; // 10 s

function percentile(latencies: Uint32Array, count: number, fraction: number): number {
  const rank = Math.ceil(count * fraction);
  let seen = 0;
  for (let bucket = 0; bucket <= MAX_BUCKET; bucket++) {
    seen += latencies[bucket];
    if (seen >= rank) return (bucket + 0.5) / BUCKETS_PER_MS;
  }
  return Number.NaN;
}

function run(options: LoadOptions): Promise<LoadSummary> {
  const latencies = new Uint32Array(MAX_BUCKET + 1);
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: options.body,
        connections: options.connections,
        duration: options.seconds,
        excludeErrorStats: false,
      },
      (error, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const statuses = Object.fromEntries(
          Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]),
        );
        const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
        resolve({
          requestsPerSecond: total / result.duration,
          total,
          seconds: result.duration,
          p50Ms: percentile(latencies, total, 0.5),
          p99Ms: percentile(latencies, total, 0.99),
          statuses,
          errors: result.errors,
          timeouts: result.timeouts,
          resets: result.resets,
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      latencies[Math.min(MAX_BUCKET, Math.floor(ms * BUCKETS_PER_MS))]++;
    });
  });
}

process.on('message', (options: LoadOptions) => {
  run(options).then(
    (summary) => process.send?.({ summary }),
    (error: Error) => process.send?.({ error: error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
