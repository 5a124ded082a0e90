import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunningProcess } from '../test/helpers/processes';
import { LOAD_CPU, OUT_DIR, pinned } from './common';
import type { LoadOptions, LoadSummary } from './load';

/**
 * wrk (one C thread, pinned like autocannon) as a second load generator, to tell whether autocannon
 * is the limit for the fastest targets. Optional: without wrk on PATH, or with BENCH_WRK=0, the
 * bench leaves it out.
 */
export const WRK = process.env.BENCH_WRK !== '0' && !spawnSync('wrk', ['--version']).error;

const MS_PER: Record<string, number> = { us: 1e-3, ms: 1, s: 1e3, m: 6e4 };
const figure = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
/** A percentile of wrk's `--latency` distribution ("  99%   12.34ms"), in ms. */
function latencyMs(text: string, percent: number): number {
  const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  return match ? Number(match[1]) * MS_PER[match[2]] : NaN;
}

/** wrk's summary as autocannon's: wrk counts answers as 2xx or not, so 2xx shows as 200. */
function summary(out: string): LoadSummary {
  const total = figure(out, /(\d+) requests in/);
  const requestsPerSecond = figure(out, /Requests\/sec:\s+([\d.]+)/);
  const other = figure(out, /Non-2xx or 3xx responses: (\d+)/) || 0;
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const [connect, read, write, timeouts] = (socket?.slice(1) ?? [0, 0, 0, 0]).map(Number);
  const statuses = { 200: total - other, ...(other ? { 'not 2xx': other } : {}) };
  const [p50Ms, p99Ms] = [latencyMs(out, 50), latencyMs(out, 99)];
  const seconds = total / requestsPerSecond;
  return {
    requestsPerSecond,
    total,
    seconds,
    p50Ms,
    p99Ms,
    statuses,
    errors: connect + read + write,
    timeouts,
  };
}

let scripts = 0;

/** One wrk run of `POST url` with `body` (its Lua script in bench/.out/). */
export async function runWrk({
  url,
  body,
  connections,
  seconds,
}: LoadOptions): Promise<LoadSummary> {
  mkdirSync(OUT_DIR, { recursive: true });
  // One script a run: two runs at once (the ablation) must not rewrite each other's.
  const script = join(OUT_DIR, `wrk-post-${(scripts += 1)}.lua`);
  const headers = 'wrk.headers["Content-Type"] = "application/json"';
  writeFileSync(script, `wrk.method = "POST"\n${headers}\nwrk.body = [==[${body}]==]\n`);
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url];
  const [command, ...rest] = pinned(LOAD_CPU, ['wrk', ...args]);
  const child = RunningProcess.start(command, rest, { name: 'wrk' });
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`wrk exited (${exit.code ?? exit.signal}): ${child.output}`);
  return summary(child.stdout);
}
