import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';
import type { LoadSummary } from './load';
import type { StoreMemory } from './memory';
import type { SoakResult } from './soak';
import type { Row } from './targets';

/** What one row measured over the rounds. */
export interface RowResult {
  row: Row;
  rounds: LoadSummary[];
  /** RSS of the row's process after its last round, in bytes. */
  rss: number;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const rps = (r: RowResult | undefined) =>
  r && !r.row.problem && r.rounds.length ? median(r.rounds.map((s) => s.requestsPerSecond)) : NaN;
export const p50 = (r: RowResult) => median(r.rounds.map((s) => s.p50Ms));
export const p99 = (r: RowResult | undefined) =>
  r && !r.row.problem && r.rounds.length ? median(r.rounds.map((s) => s.p99Ms)) : NaN;

/** The server's median CPU use over the rounds: under ~95 % means it was not saturated or was starved. */
const cpu = (r: RowResult) =>
  `${fixed(median(r.rounds.map((s) => (s.serverCpu ?? NaN) * 100)), 0)} %`;

export const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const thousands = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–');

export function machine(): string {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? 'unknown CPU';
  const memory = (totalmem() / 2 ** 30).toFixed(0);
  return `${model}, ${availableParallelism()} cores, ${memory} GiB; Linux ${release()}; Node ${process.version}`;
}

export const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');

/** The baselines a row is compared with: the ceilings under the same body (the 429 path: 200). */
function baselines(row: Row, results: RowResult[]) {
  const find = (name: string) =>
    results.find((r) => r.row.target.name === name && r.row.workload === row.workload);
  return { express: find('express-ceiling'), http: find('http-ceiling') };
}

export function throughputTable(results: RowResult[]): string {
  const lines = [
    '| target | answers | req/s (median) | each round | p50 ms | p99 ms | server CPU | RSS after, MiB | vs Express | vs node:http |',
    '|---|---|--:|---|--:|--:|--:|--:|--:|--:|',
  ];
  for (const result of results) {
    const { row } = result;
    const { express, http } = baselines(row, results);
    const mine = rps(result);
    const rounds = result.rounds.map((s) => thousands(s.requestsPerSecond)).join(' · ');
    const cells = row.problem
      ? [`**not measured: ${row.problem}**`]
      : [thousands(mine), rounds, fixed(p50(result), 2), fixed(p99(result), 2), cpu(result)].concat(
          [mib(result.rss), ratio(mine, rps(express)), ratio(mine, rps(http))],
        );
    lines.push(`| ${row.label} | ${row.status} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function storeMemoryTable(store: StoreMemory[]): string {
  const lines = ['| keys | clients | bytes per client | a key as stored |', '|---|--:|--:|---|'];
  for (const s of store) {
    const clients = s.clients.toLocaleString('en-US');
    lines.push(`| ${s.kind} | ${clients} | ${s.bytesPerClient.toFixed(1)} | \`${s.example}\` |`);
  }
  return lines.join('\n');
}

export function soakLine(soak: SoakResult | undefined, seconds: number) {
  if (!soak?.verdict) return 'Soak not run (BENCH_SOAK_SECONDS=0).';
  const { first, last, max, firstHalfPeak, secondHalfPeak, flat } = soak.verdict;
  const problem = soak.problem ? ` The soak's answers were wrong: ${soak.problem}.` : '';
  return (
    `${seconds} s at full load on the in-memory service: RSS ${mib(first)} MiB after 10 s, ` +
    `${mib(last)} MiB at the end, ${mib(max)} MiB at most; peak of the first half ` +
    `${mib(firstHalfPeak)} MiB, of the second ${mib(secondHalfPeak)} MiB: ` +
    `${flat ? 'flat' : '**grew** (or too short to tell: 40 s at least)'}.${problem}\n\n` +
    `Samples (MiB, every 10 s from the start of the load): ${soak.points}.`
  );
}
