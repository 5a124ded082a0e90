import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { CAN_PIN, LOAD_CPU, ROOT, type Server, SERVER_CPU, SERVICE_FLAGS } from './common';
import type { LoadSummary } from './load';
import type { StoreMemory } from './memory';
import { WRK } from './wrk';

/**
 * The load generators: the rounds' (the table and the goals) and the one beside it on three rows.
 * wrk first when on PATH: one C thread, it is not the limit for any target here (autocannon, Node
 * on one core, was for the fastest: bench/README.md, "Two load generators").
 */
export const GENERATORS = WRK
  ? { first: 'wrk', beside: 'autocannon' }
  : { first: 'autocannon', beside: undefined };

type Figure =
  | 'seconds'
  | 'rounds'
  | 'warmup'
  | 'pairWarmup'
  | 'freshPair'
  | 'connections'
  | 'soakSeconds'
  | 'startUps'
  | 'took';
/** The run's settings (bench/README.md's variables), its load average at the start, its duration. */
export type Settings = Record<Figure, number> & { loadAtStart: string };
/** A server under test: `limit` is its RATE_LIMIT_PER_DAY. */
export interface Target {
  name: string;
  command: string[];
  env: object;
  limit: number;
  server?: Server;
}
/** A line of the table: a target under one workload; `problem`: why it has no figures. */
export interface Row {
  label: string;
  target: Target;
  status: number;
  workload: 'readme' | 'largest' | 'projected';
  problem?: string;
  /** The rounds of the first generator (GENERATORS.first). */
  rounds: LoadSummary[];
  /** The rounds of the generator beside it, for the rows it loads. */
  beside: LoadSummary[];
  besideProblem?: string;
  rss: number;
}
/** A soak: RSS every 10 s from the start of its load and once after, what was wrong with its answers. */
export type Soak = { name: string; label: string; samples: number[]; problem?: string };
/** Seconds from spawn to first answer, each time. */
export type StartUp = { name: string; label: string; seconds: number[] };
export type Results = { rows: Row[]; store: StoreMemory[]; soaks: Soak[]; startUps: StartUp[] };

export const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const two = (n: number) => n.toFixed(2);
export const loadAverage = () => loadavg().map(two).join(' / ');
export function machine(): string {
  const model = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  const memory = `${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
  return `${model ?? 'unknown CPU'}, ${availableParallelism()} cores, ${memory}; Linux ${release()}; Node ${process.version}`;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (!sorted.length) return NaN;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
/** The goals' pair: the service, and the bare Nest route it is held to (run.ts runs them back to back). */
export const GOAL_PAIR = ['service', 'bare-nest'] as const;

/**
 * The median over the rounds of `figure` on `a` divided by the same round's on `b`: the pair ran
 * back to back in each round (run.ts, roundOrder), so the host's drift from round to round cancels
 * out. NaN for a missing or spoilt row.
 */
export function pairedRatio(
  a: Row | undefined,
  b: Row | undefined,
  figure: (s: LoadSummary) => number,
): number {
  if (!a || !b || a.problem || b.problem) return NaN;
  const rounds = Math.min(a.rounds.length, b.rounds.length);
  const ratios = a.rounds.slice(0, rounds).map((s, i) => figure(s) / figure(b.rounds[i]));
  return median(ratios);
}

type Runs = 'rounds' | 'beside';
/** The median of a figure over a row's rounds (either generator's); NaN for a missing or spoilt row. */
function med(row: Row | undefined, figure: (s: LoadSummary) => number, runs: Runs = 'rounds') {
  const spoilt = runs === 'rounds' ? row?.problem : row?.besideProblem;
  return !row || spoilt ? NaN : median(row[runs].map(figure));
}
export const rps = (row?: Row, runs?: Runs) => med(row, (s) => s.requestsPerSecond, runs);
export const p99 = (row?: Row, runs?: Runs) => med(row, (s) => s.p99Ms, runs);
const cpu = (row: Row, runs?: Runs) =>
  fixed(
    med(row, (s) => (s.serverCpu ?? NaN) * 100, runs),
    0,
  );
export const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const count = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const times = (r: number) => (Number.isFinite(r) ? `${fixed(r)}×` : '–');

function throughputTable(rows: Row[]): string {
  const vs = (name: string, row: Row) =>
    times(rps(row) / rps(rows.find((r) => r.target.name === name && r.workload === row.workload)));
  const lines = rows.map((row) => {
    const rounds = row.rounds.map((s) => count(s.requestsPerSecond)).join(' · ');
    const p50 = med(row, (s) => s.p50Ms);
    const figures = `${count(rps(row))} | ${rounds} | ${fixed(p50)} | ${fixed(p99(row))} | ${cpu(row)} %`;
    const ratios = ['bare-nest', 'express-ceiling', 'http-ceiling'].map((n) => vs(n, row));
    const cells = row.problem
      ? `**not measured: ${row.problem}**`
      : `${figures} | ${mib(row.rss)} | ${ratios.join(' | ')}`;
    return `| ${row.label} | ${row.status} | ${cells} |`;
  });
  return `| target | answers | req/s (median) | each round | p50 ms | p99 ms | server CPU | RSS after, MiB | vs bare Nest | vs Express | vs node:http |
|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|
${lines.join('\n')}

Server CPU under ~95 %: the server was not the bottleneck (or was starved), its req/s a lower bound.`;
}

function besideTable(rows: Row[], connections: number): string {
  const { first, beside } = GENERATORS;
  const loaded = rows.filter((row) => row.beside.length || row.besideProblem);
  if (!beside || !loaded.length) return 'Not run: wrk is not on PATH, or BENCH_WRK=0.';
  const intro = `The same rows under ${beside} (${connections} connections, pinned like ${first}), one run after ${first}'s in each round; medians over the rounds. Where one generator gets more from a server the other left under ~95 % CPU, the other was the limit.`;
  const lines = loaded.map((row) => {
    const [a, b] = [rps(row), rps(row, 'beside')];
    const cells = row.besideProblem
      ? `**not measured: ${row.besideProblem}**`
      : `${count(a)} | ${count(b)} | ${times(b / a)} | ${fixed(p99(row))} | ${fixed(p99(row, 'beside'))} | ${cpu(row)} % · ${cpu(row, 'beside')} %`;
    return `| ${row.label} | ${cells} |`;
  });
  return `${intro}

| target | ${first} req/s | ${beside} req/s | ${beside} / ${first} | ${first} p99 ms | ${beside} p99 ms | server CPU (${first} · ${beside}) |
|---|--:|--:|--:|--:|--:|--:|
${lines.join('\n')}`;
}

function startUpTable(startUps: StartUp[]): string {
  if (!startUps.length) return 'Not measured (BENCH_STARTUPS=0).';
  const each = (s: StartUp) => s.seconds.map((n) => fixed(n)).join(' · ');
  const lines = startUps.map((s) => `| ${s.label} | ${fixed(median(s.seconds))} | ${each(s)} |`);
  const starts = startUps[0].seconds.length;
  return `Spawn (through taskset) to the first right answer to the README's body, ${starts} times each, alternating, a fresh process each time.

| target | seconds (median) | each start |
|---|--:|---|
${lines.join('\n')}`;
}

function soakText(soaks: Soak[], seconds: number): string {
  if (!soaks.length) return 'Soak not run (BENCH_SOAK_SECONDS=0).';
  const text = (soak: Soak) => {
    const wrong = soak.problem ? ` Its answers were wrong: ${soak.problem}.` : '';
    return `- ${soak.label}: ${soak.samples.map(mib).join(', ')}.${wrong}`;
  };
  return `${seconds} s at full load on each, one after the other. RSS (MiB, every 10 s from the start of the load, and once after it):

${soaks.map(text).join('\n')}`;
}

const storeRow = (m: StoreMemory) =>
  `| ${m.kind} | ${count(m.clients)} | ${m.bytesPerClient.toFixed(1)} | \`${m.example}\` |`;
const storeTable = (
  store: StoreMemory[],
) => `Heap used after N clients' first hit minus before, over N (\`node --expose-gc\`, the compiled \`MemoryDailyLimitStorage\`, keys from the service's \`clientKey()\`; measured during the first soak).

| keys | clients | bytes per client | a key as stored |
|---|--:|--:|---|
${store.map(storeRow).join('\n')}`;

/** How the run was made: the list at the top of RESULTS.md. */
function setup(s: Settings): string {
  const pinning = CAN_PIN
    ? `servers and redis-server on core ${SERVER_CPU}, the load generators on core ${LOAD_CPU} (taskset)`
    : 'none (taskset unavailable or a single core)';
  return `- Machine: ${machine()}.
- Pinning: ${pinning}.
- Load: ${GENERATORS.first === 'wrk' ? 'wrk (`-t1`)' : 'autocannon (wrk not on PATH)'}, ${s.connections} keep-alive connections, \`POST /api/depreciate\`; a ${s.warmup} s warm-up per row, then ${s.rounds} rounds × ${s.seconds} s, the rows alternating within each round, the service and the bare Nest route first and back to back (which leads alternates), each warmed ${s.pairWarmup} s just before${s.freshPair ? ', in fresh processes each round after the first (so their RSS is after one round)' : ''}; req/s is the median over the rounds, and the goals compare that pair round by round (the median of the rounds' ratios).${GENERATORS.beside ? ` ${GENERATORS.beside} beside it for three rows (below).` : ''}
- Bodies: the README example (2020 sedan, 7 entries), the largest answer (\`purchaseYear\` 1900, one entry a year since), and the same with \`projectionYears\` 10 (ten more entries).
- Runtime: every target and the load generator run on the pinned Node ${process.version} (the \`node\` package in the lock file).
- Service: the pinned Node with \`${[...SERVICE_FLAGS, 'dist/main.js'].join(' ')}\` (as \`npm start\` runs it), NODE_ENV=production, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}, stdout to /dev/null (not a TTY), stderr to \`bench/.out/\`; RATE_LIMIT_PER_DAY=10⁹ (counts, never refuses), 1 for the 429 row; the peer restarted before each round. The soaks and start-ups load the service and the bare Nest route alike.
- Base of the goals: the bare Nest route (\`bench/bare-nest.ts\`: Nest on Express, its default JSON body parser, one controller running the service's precheck and \`DepreciationService\`; no pipe, guard, filter, middleware, log line or metrics). The ceilings are context.
- Load average (1 / 5 / 15 min) at the start: ${s.loadAtStart}; at the end: ${loadAverage()}.`;
}

/** RESULTS.md (`goals`: goals.ts's table): printed, and written to bench/RESULTS.md; returns its path. */
export function writeResults(s: Settings, results: Results, goals: string): string {
  const { rows, store, soaks, startUps } = results;
  const markdown = `# Benchmark results

Written by \`npm run bench\` on ${new Date().toISOString()} in ${fixed(s.took, 0)} s;
re-run it to refresh this file, do not edit it by hand. What each row and column is, and the
goals: [README.md](README.md).

${setup(s)}

## Throughput and latency

${throughputTable(rows)}

## ${GENERATORS.beside ? `${GENERATORS.beside} beside ${GENERATORS.first}` : 'A second load generator'}

${besideTable(rows, s.connections)}

## Start-up

${startUpTable(startUps)}

## Goals

${goals}

## Memory of the in-memory store

${storeTable(store)}

## Soak

${soakText(soaks, s.soakSeconds)}
`;
  console.log(`\n${markdown}`);
  const path = join(ROOT, 'bench', 'RESULTS.md');
  writeFileSync(path, markdown);
  return path;
}
