import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { CAN_PIN, LOAD_CPU, ROOT, type Server, SERVER_CPU } from './common';
import type { LoadSummary } from './load';
import type { StoreMemory } from './memory';

type Figure = 'seconds' | 'rounds' | 'warmup' | 'connections' | 'soakSeconds' | 'took';
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
  rounds: LoadSummary[];
  rss: number;
}
/** RSS every 10 s from the start of the soak's load, and what was wrong with its answers. */
type Soak = { samples: number[]; problem?: string } | undefined;

export const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const two = (n: number) => n.toFixed(2);
export const loadAverage = () => loadavg().map(two).join(' / ');
export function machine(): string {
  const model = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  const memory = `${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
  return `${model ?? 'unknown CPU'}, ${availableParallelism()} cores, ${memory}; Linux ${release()}; Node ${process.version}`;
}

/** The median of a figure over a row's rounds; NaN for a missing or spoilt row. */
function med(row: Row | undefined, figure: (s: LoadSummary) => number): number {
  if (!row || row.problem || !row.rounds.length) return NaN;
  const sorted = row.rounds.map(figure).sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
const rps = (row?: Row) => med(row, (s) => s.requestsPerSecond);
const p99 = (row?: Row) => med(row, (s) => s.p99Ms);
const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const count = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const times = (r: number) => `${fixed(r)}×`;

function throughputTable(rows: Row[]): string {
  const vs = (name: string, row: Row) =>
    times(rps(row) / rps(rows.find((r) => r.target.name === name && r.workload === row.workload)));
  const cpu = (row: Row) => med(row, (s) => (s.serverCpu ?? NaN) * 100);
  const lines = rows.map((row) => {
    const rounds = row.rounds.map((s) => count(s.requestsPerSecond)).join(' · ');
    const p50 = med(row, (s) => s.p50Ms);
    const figures = `${count(rps(row))} | ${rounds} | ${fixed(p50)} | ${fixed(p99(row))} | ${fixed(cpu(row), 0)} %`;
    const ratios = `${mib(row.rss)} | ${vs('express-ceiling', row)} | ${vs('http-ceiling', row)}`;
    const cells = row.problem ? `**not measured: ${row.problem}**` : `${figures} | ${ratios}`;
    return `| ${row.label} | ${row.status} | ${cells} |`;
  });
  return `| target | answers | req/s (median) | each round | p50 ms | p99 ms | server CPU | RSS after, MiB | vs Express | vs node:http |
|---|---|--:|---|--:|--:|--:|--:|--:|--:|
${lines.join('\n')}`;
}

/** Flat: the second half of the soak sets no peak 5 % over the first half's (RSS is a sawtooth). */
function soakPeaks(soak: Soak) {
  const loaded = soak && soak.samples.length > 2 ? soak.samples.slice(1) : soak?.samples; // 0 s: before load
  if (!soak || !loaded) return undefined;
  const half = Math.ceil(loaded.length / 2);
  const [first, second] = [Math.max(...loaded.slice(0, half)), Math.max(...loaded.slice(half), 0)];
  return { first, second, flat: !soak.problem && loaded.length >= 4 && second <= first * 1.05 };
}

/** The goals of bench/README.md, each with what this run measured and PASS, FAIL or not measured. */
function goalsTable(rows: Row[], store: StoreMemory[], soak: Soak): string {
  const row = (name: string) => rows.find((r) => r.target.name === name && r.workload === 'readme');
  const [service, express] = [rps(row('service')), rps(row('express-ceiling'))];
  const [p99s, p99x] = [p99(row('service')), p99(row('express-ceiling'))];
  const redis = rps(row('service-redis'));
  const [peaks, refusals] = [soakPeaks(soak), rps(row('service-429')) / express];
  const shown = (r: number, text = times(r)) => (Number.isFinite(r) ? text : undefined);
  const goal = (name: string, measured: string | undefined, pass?: boolean) =>
    measured === undefined
      ? `| ${name} | not measured (a row missing or failed, or no soak) | not measured |`
      : `| ${name} | ${measured} | ${pass ? 'PASS' : '**FAIL**'} |`;
  const bytes = store.map((m) => `${m.kind} ${m.clients / 1e3}k: ${m.bytesPerClient.toFixed(0)} B`);
  return `| goal | measured | result |
|---|---|---|
${goal('service ≥ 0.70 × the Express ceiling (long term: 0.85 ×)', shown(service / express), service / express >= 0.7)}
${goal('429 path ≥ 0.90 × the Express ceiling (200 path)', shown(refusals), refusals >= 0.9)}
${goal('p99 at 50 connections ≤ 1.5 × the Express ceiling’s', shown(p99s / p99x, `${fixed(p99s)} ms vs ${fixed(p99x)} ms: ${times(p99s / p99x)}`), p99s / p99x <= 1.5)}
${goal('Redis store ≥ 75 % of the in-memory store', shown(redis / service, `${fixed((redis / service) * 100, 1)} %`), redis / service >= 0.75)}
${goal('in-memory store ≤ 120 bytes per client', bytes.join(', ') || undefined, Math.max(...store.map((m) => m.bytesPerClient)) <= 120)}
${goal('RSS flat over the soak', peaks && `peaks ${mib(peaks.first)} → ${mib(peaks.second)} MiB (first → second half)`, peaks?.flat)}`;
}

function soakText(soak: Soak, seconds: number): string {
  const peaks = soakPeaks(soak);
  if (!soak || !peaks) return 'Soak not run (BENCH_SOAK_SECONDS=0).';
  const shape = peaks.flat ? 'flat' : '**grew** (or too short to tell: 40 s at least)';
  const wrong = soak.problem ? ` The soak's answers were wrong: ${soak.problem}.` : '';
  return `${seconds} s at full load on the in-memory service. RSS (MiB, every 10 s from the start of the load): ${soak.samples.map(mib).join(', ')}; peak of the first half ${mib(peaks.first)}, of the second ${mib(peaks.second)}: ${shape}.${wrong}`;
}

const storeRow = (m: StoreMemory) =>
  `| ${m.kind} | ${count(m.clients)} | ${m.bytesPerClient.toFixed(1)} | \`${m.example}\` |`;

/** RESULTS.md: printed, and written to bench/RESULTS.md; returns its path. */
export function writeResults(s: Settings, rows: Row[], store: StoreMemory[], soak: Soak): string {
  const pinning = CAN_PIN
    ? `servers and redis-server on core ${SERVER_CPU}, autocannon on core ${LOAD_CPU} (taskset)`
    : 'none (taskset unavailable or a single core)';
  const markdown = `# Benchmark results

Written by \`npm run bench\` on ${new Date().toISOString()} in ${fixed(s.took, 0)} s;
re-run it to refresh this file, do not edit it by hand. What each row and column is, and the
goals: [README.md](README.md).

- Machine: ${machine()}.
- Pinning: ${pinning}.
- Load: autocannon, ${s.connections} keep-alive connections, \`POST /api/depreciate\`; a ${s.warmup} s warm-up per row, then ${s.rounds} rounds × ${s.seconds} s, the rows alternating within each round; req/s is the median over the rounds.
- Bodies: the README example (2020 sedan, 7 entries), the largest answer (\`purchaseYear\` 1900, one entry a year since), and the same with \`projectionYears\` 10 (ten more entries).
- Runtime: every target and the load generator run on the pinned Node ${process.version} (the \`node\` package in the lock file).
- Service: \`node dist/main.js\`, NODE_ENV=production, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}, stdout to /dev/null (not a TTY), stderr to \`bench/.out/\`; RATE_LIMIT_PER_DAY=10⁹ (counts, never refuses), 1 for the 429 row; the peer restarted before each round.
- Load average (1 / 5 / 15 min) at the start: ${s.loadAtStart}; at the end: ${loadAverage()}.

## Throughput and latency

${throughputTable(rows)}

Server CPU under ~95 %: the server was not the bottleneck (or was starved), its req/s a lower bound.

## Goals

${goalsTable(rows, store, soak)}

## Memory of the in-memory store

Heap used after N clients' first hit minus before, over N (\`node --expose-gc\`, the compiled \`MemoryDailyLimitStorage\`, keys from the service's \`clientKey()\`; measured during the soak).

| keys | clients | bytes per client | a key as stored |
|---|--:|--:|---|
${store.map(storeRow).join('\n')}

## Soak

${soakText(soak, s.soakSeconds)}
`;
  console.log(`\n${markdown}`);
  const path = join(ROOT, 'bench', 'RESULTS.md');
  writeFileSync(path, markdown);
  return path;
}
