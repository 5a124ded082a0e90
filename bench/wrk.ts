import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunningProcess } from '../src/testing/processes';
import { LOAD_CPU, OUT_DIR, pinned } from './common';
import type { LoadOptions, LoadSummary } from './load';

/**
 * wrk (one C thread, pinned to the load core): the bench's first load generator when on PATH, and
 * the ablation's. Optional for `npm run bench`: without wrk on PATH, or with BENCH_WRK=0, autocannon
 * loads the rows alone.
 */
export const WRK = process.env.BENCH_WRK !== '0' && !spawnSync('wrk', ['--version']).error;

const MS_PER: Record<string, number> = { us: 1e-3, ms: 1, s: 1e3, m: 6e4 };
const figure = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
/** A percentile of wrk's `--latency` distribution ("  99%   12.34ms"), in ms. */
function latencyMs(text: string, percent: number): number {
  const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  return match ? Number(match[1]) * MS_PER[match[2]] : NaN;
}

/**
 * The Lua script of one run: the POST and its body, and a count of the answers by status (wrk's
 * own summary counts only 2xx or not), printed at the end as `statuses 200=1234 429=5`.
 */
const script = (body: string) => `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[${body}]==]
local threads = {}
counts = {}
function setup(thread) table.insert(threads, thread) end
function response(status) counts[status] = (counts[status] or 0) + 1 end
function done()
  local all = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do all[status] = (all[status] or 0) + n end
  end
  io.write("statuses")
  for status, n in pairs(all) do io.write(" " .. status .. "=" .. n) end
  io.write("\\n")
end
`;

/** The answers by status, from the script's last line. */
function statusesOf(out: string): Record<string, number> {
  const line = /^statuses(.*)$/m.exec(out)?.[1] ?? '';
  const pairs = line.trim().split(/\s+/).filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => pair.split('=')).map(([k, n]) => [k, Number(n)]));
}

/** wrk's summary as autocannon's. */
function summary(out: string): LoadSummary {
  const total = figure(out, /(\d+) requests in/);
  const requestsPerSecond = figure(out, /Requests\/sec:\s+([\d.]+)/);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const [connect, read, write, timeouts] = (socket?.slice(1) ?? [0, 0, 0, 0]).map(Number);
  const statuses = statusesOf(out);
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
  const file = join(OUT_DIR, `wrk-post-${(scripts += 1)}.lua`);
  writeFileSync(file, script(body));
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', file, url];
  const [command, ...rest] = pinned(LOAD_CPU, ['wrk', ...args]);
  const child = RunningProcess.start(command, rest, { name: 'wrk' });
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`wrk exited (${exit.code ?? exit.signal}): ${child.output}`);
  return summary(child.stdout);
}
