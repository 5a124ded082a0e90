import { ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { benchJs, LOAD_CPU, pinned } from './common';

/**
 * The load generator: this file as a process pinned to the load core runs autocannon for each
 * LoadOptions sent over IPC; latency of every answer in 10 µs buckets (autocannon's: whole ms).
 */
export type LoadOptions = { url: string; body: string; connections: number; seconds: number };
export type LoadSummary = Awaited<ReturnType<typeof load>> & { serverCpu?: number };
const PER_MS = 100;
const MAX_BUCKET = 10_000 * PER_MS; // 10 s

function percentile(latencies: Uint32Array, count: number, fraction: number): number {
  for (let bucket = 0, seen = 0; bucket <= MAX_BUCKET; bucket++) {
    seen += latencies[bucket];
    if (seen >= Math.ceil(count * fraction)) return (bucket + 0.5) / PER_MS;
  }
  return NaN;
}

async function load({ seconds, ...options }: LoadOptions) {
  const latencies = new Uint32Array(MAX_BUCKET + 1);
  const headers = { 'content-type': 'application/json' };
  const settings = { ...options, method: 'POST' as const, headers, duration: seconds };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(settings, (e, done) => (e ? reject(e as Error) : resolve(done)));
    run.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      latencies[Math.min(MAX_BUCKET, Math.floor(ms * PER_MS))]++;
    });
  });
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]),
  );
  const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  const [p50Ms, p99Ms] = [0.5, 0.99].map((f) => percentile(latencies, total, f));
  const { errors, timeouts, duration } = result;
  const requestsPerSecond = total / duration;
  return { requestsPerSecond, total, seconds: duration, p50Ms, p99Ms, statuses, errors, timeouts };
}

if (require.main === module) {
  process.on('message', (options: LoadOptions) => {
    const reply = (message: object) => process.send?.(message);
    load(options).then(
      (summary) => reply({ summary }),
      (error: Error) => reply({ error: `${error}` }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

let worker: ChildProcess | undefined;
/** Runs one load in the load generator's process (started on first use). */
export function runLoad(options: LoadOptions): Promise<LoadSummary> {
  if (!worker?.connected) {
    const [command, ...args] = pinned(LOAD_CPU, [process.execPath, benchJs('load')]);
    worker = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  }
  const child = worker;
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`load generator exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (reply: { summary?: LoadSummary; error?: string }) => {
      child.off('exit', onExit);
      if (reply.summary) resolve(reply.summary);
      else reject(new Error(`load generator: ${reply.error}`));
    });
    child.send(options);
  });
}
export const stopLoad = () => worker?.connected && worker.disconnect();

/** Why a run cannot be trusted (another status, errors, timeouts, no answer), or undefined. */
export function unexpectedAnswers(summary: LoadSummary, expected: number): string | undefined {
  const problems = Object.entries(summary.statuses)
    .filter(([status]) => Number(status) !== expected)
    .map(([status, count]) => `${count} × ${status}`);
  if (summary.errors) problems.push(`${summary.errors} errors`);
  if (summary.timeouts) problems.push(`${summary.timeouts} timeouts`);
  if (summary.total === 0) problems.push('no answer at all');
  return problems.length ? `expected only ${expected}, got ${problems.join(', ')}` : undefined;
}
