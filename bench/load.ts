import { ChildProcess, spawn } from 'node:child_process';
import { BENCH_JS } from './project';
import { LOAD_CPU, pinned } from './processes';

/** One load run: autocannon POSTing `body` to `url` (see load-worker.ts). */
export interface LoadOptions {
  url: string;
  body: string;
  connections: number;
  seconds: number;
}

/** What a load run measured, every status it saw included. */
export interface LoadSummary {
  requestsPerSecond: number;
  total: number;
  seconds: number;
  /** Latency percentiles over every answer, in milliseconds (10 µs buckets). */
  p50Ms: number;
  p99Ms: number;
  /** Answers per HTTP status, e.g. { "200": 123456 }. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  resets: number;
  /** The server process's CPU time over the run's wall time (1 = one whole core), when known. */
  serverCpu?: number;
}

let worker: ChildProcess | undefined;

/** The load generator's process, started on first use and pinned to the load core. */
function loadWorker(): ChildProcess {
  if (worker?.connected) return worker;
  const command = pinned(LOAD_CPU, [process.execPath, BENCH_JS('load-worker')]);
  worker = spawn(command[0], command.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return worker;
}

/** Runs autocannon in the load generator's process and resolves with its summary. */
export function runLoad(options: LoadOptions): Promise<LoadSummary> {
  const child = loadWorker();
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

/** Lets the load generator's process end. */
export function stopLoad(): void {
  if (worker?.connected) worker.disconnect();
}

/**
 * Why a run cannot be trusted, or undefined: an answer with another status than `expected`, or a
 * connection error or timeout. A broken target must not look fast.
 */
export function unexpectedAnswers(summary: LoadSummary, expected: number): string | undefined {
  const others = Object.entries(summary.statuses).filter(([status]) => Number(status) !== expected);
  const problems = [
    ...others.map(([status, count]) => `${count} × ${status}`),
    ...(summary.errors ? [`${summary.errors} errors`] : []),
    ...(summary.timeouts ? [`${summary.timeouts} timeouts`] : []),
  ];
  if (summary.total === 0) problems.push('no answer at all');
  return problems.length ? `expected only ${expected}, got ${problems.join(', ')}` : undefined;
}
