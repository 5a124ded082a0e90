import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADDITIONS, type Addition } from '../src/additions';
import * as c from './common';
import { type LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import { fixed, machine, median } from './report';
import { tailOf } from './tail';
import { runWrk, WRK } from './wrk';

/**
 * `npm run bench:ablation` (bench/README.md, "Where the time goes"): the service, the service
 * without each of its additions (bench/variant.ts), and the bare Nest route, loaded in alternating
 * rounds by wrk (autocannon without it). An addition's cost is the server CPU time per request it
 * adds: the whole service's, less the same without it, paired within each round (round()) and
 * the median taken over the rounds. Then the tail's evidence of the
 * service and the bare route (tail.ts). Prints both tables and writes them to bench/.out/.
 */
const ROUNDS = c.envNumber('BENCH_ROUNDS', 5);
const SECONDS = c.envNumber('BENCH_DURATION', 3);
const WARMUP = c.envNumber('BENCH_WARMUP', 1);
const CONNECTIONS = c.envNumber('BENCH_CONNECTIONS', 50);
const ENV = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: '1000000000' };

interface Variant {
  label: string;
  command: string[];
  without?: readonly Addition[];
  server?: c.Server;
  runs: LoadSummary[];
  /** Per round: the whole service's CPU µs per request on either side of it, less this one's. */
  deltas: number[];
  problem?: string;
}

const variant = (label: string, without: readonly Addition[]): Variant => ({
  label,
  without,
  command: [process.execPath, c.benchJs('variant'), ...without],
  runs: [],
  deltas: [],
});
const VARIANTS: Variant[] = [
  variant('the whole service', []),
  ...ADDITIONS.map((addition) => variant(`without ${addition}`, [addition])),
  variant('without any of them', ADDITIONS),
  {
    label: 'the bare Nest route',
    command: [process.execPath, c.benchJs('bare-nest')],
    runs: [],
    deltas: [],
  },
];

const started = Date.now();
const log = (line: string) =>
  console.log(`[ablation ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);
const urlOf = (v: Variant) => `http://127.0.0.1:${v.server?.port ?? 0}${c.ROUTE}`;
const loadOf = (v: Variant, seconds: number) =>
  (WRK ? runWrk : runLoad)({
    url: urlOf(v),
    body: JSON.stringify(c.README_BODY),
    connections: CONNECTIONS,
    seconds,
  });

/** One measured load of `v`, after its warm-up: the server's CPU time per request with it. */
async function measure(v: Variant, n: number): Promise<number> {
  v.problem ??= unexpectedAnswers(await loadOf(v, n === 1 ? 3 * WARMUP : WARMUP), 200);
  const pid = v.server?.process.pid ?? -1;
  const cpu = c.cpuSeconds(pid);
  const summary = await loadOf(v, SECONDS);
  summary.serverCpu = (c.cpuSeconds(pid) - cpu) / summary.total;
  v.problem ??= unexpectedAnswers(summary, 200);
  v.runs.push(summary);
  const figures = `${Math.round(summary.requestsPerSecond)} req/s, ${fixed(summary.serverCpu * 1e6, 0)} µs`;
  log(`round ${n}/${ROUNDS} ${v.label}: ${figures}`);
  return summary.serverCpu * 1e6;
}

/**
 * One round: the whole service, two others, the whole service again, and so on, the others in
 * another order each round. Each other's difference to the whole service is taken against the
 * whole service's two loads on either side of it, so the host's slow spells (seconds long on a
 * shared machine) fall on both sides of the difference.
 */
async function round(n: number): Promise<void> {
  const [whole, ...others] = VARIANTS;
  const shift = (n * 2) % others.length;
  const order = [...others.slice(shift), ...others.slice(0, shift)];
  let before = await measure(whole, n);
  for (let i = 0; i < order.length; i += 2) {
    const pair = order.slice(i, i + 2);
    const costs: number[] = [];
    for (const v of pair) costs.push(await measure(v, n));
    const after = await measure(whole, n);
    pair.forEach((v, k) => v.deltas.push((before + after) / 2 - costs[k]));
    before = after;
  }
}

/** The server's CPU time per request, median over the rounds. */
const usPerRequest = (v: Variant) =>
  v.problem ? NaN : median(v.runs.map((s) => (s.serverCpu ?? NaN) * 1e6));

/** The table: each variant's req/s, p99, server µs per request, and what its addition costs. */
function table(): string {
  const lines = VARIANTS.map((v) => {
    const rps = median(v.runs.map((s) => s.requestsPerSecond));
    const p99 = median(v.runs.map((s) => s.p99Ms));
    const rounds = v.deltas.map((d) => fixed(d, 0)).join(' · ');
    const cost = v.problem || v === VARIANTS[0] ? '' : fixed(median(v.deltas), 1);
    const cells = [v.label, Math.round(rps), fixed(p99, 1), fixed(usPerRequest(v), 1), cost];
    return `| ${[...cells, v.problem ?? rounds].join(' | ')} |`;
  });
  return [
    `${machine()}; ${WRK ? 'wrk' : 'autocannon'} -c${CONNECTIONS}, ${ROUNDS} rounds × ${SECONDS} s`,
    '',
    '| variant | req/s | p99 ms | CPU µs/request | less than the whole service (µs/request) | each round |',
    '|---|--:|--:|--:|--:|---|',
    ...lines,
  ].join('\n');
}

c.runMain(async () => {
  log(`${machine()}; ${WRK ? 'wrk' : 'autocannon (wrk not on PATH)'}`);
  for (const v of VARIANTS) {
    v.server = await c.startServer(`ablation-${VARIANTS.indexOf(v)}`, v.command, ENV);
    v.problem = await c.checkAnswer(urlOf(v), c.README_BODY, 200, 0);
    if (v.problem) log(`${v.label}: left out, ${v.problem}`);
  }
  for (let n = 1; n <= ROUNDS; n++) await round(n);
  for (const v of VARIANTS) await v.server?.process.stop(5_000);
  const costs = table();
  console.log(`\n${costs}\n`);
  const tail = await tailOf([VARIANTS[0], VARIANTS.at(-1)!], ENV, log);
  console.log(`\n${tail}\n`);
  stopLoad();
  mkdirSync(c.OUT_DIR, { recursive: true });
  const file = join(c.OUT_DIR, 'ablation.md');
  writeFileSync(file, `${costs}\n\n${tail}\n`);
  log(`written to ${file}`);
});
