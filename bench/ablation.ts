import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADDITIONS, type Addition } from '../src/additions';
import * as c from './common';
import { type LoadSummary, stopLoad, unexpectedAnswers } from './load';
import { fixed, machine, median } from './report';
import { tailOf } from './tail';
import { runWrk, WRK } from './wrk';

/**
 * `npm run bench:ablation` (bench/README.md, "Where the time goes"): the service, the service
 * without each of its additions (bench/variant.ts), and the bare Nest route, each loaded by wrk
 * at the same time as the whole service (round()). An addition's cost is the server CPU time per
 * request it adds: the whole service's, less the same without it, the median over the rounds. Then the tail's evidence of the
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
  runWrk({
    url: urlOf(v),
    body: JSON.stringify(c.README_BODY),
    connections: CONNECTIONS,
    seconds,
  });

/** A load of `v` for `seconds`, with the server's CPU time per request over it. */
async function loadWithCpu(v: Variant, seconds: number): Promise<LoadSummary> {
  const pid = v.server?.process.pid ?? -1;
  const cpu = c.cpuSeconds(pid);
  const summary = await loadOf(v, seconds);
  summary.serverCpu = (c.cpuSeconds(pid) - cpu) / summary.total;
  v.problem ??= unexpectedAnswers(summary, 200);
  return summary;
}

/**
 * One round: each variant loaded at the same time as the whole service, both servers on the
 * same core (the kernel shares it between them) and a wrk each on the load core. The two see the
 * same host at the same instant, so its slow spells (seconds long on a shared machine, ±30 % of
 * CPU time) fall on both sides of the difference: the whole service's CPU time per request, less
 * the variant's.
 */
async function round(n: number): Promise<void> {
  const [whole, ...others] = VARIANTS;
  for (const v of others.filter((x) => !x.problem)) {
    const warmUp = n === 1 ? 3 * WARMUP : WARMUP;
    await Promise.all([loadWithCpu(whole, warmUp), loadWithCpu(v, warmUp)]);
    const [w, o] = await Promise.all([loadWithCpu(whole, SECONDS), loadWithCpu(v, SECONDS)]);
    whole.runs.push(w);
    v.runs.push(o);
    v.deltas.push(((w.serverCpu ?? NaN) - (o.serverCpu ?? NaN)) * 1e6);
    const us = (s: LoadSummary) => fixed((s.serverCpu ?? NaN) * 1e6, 0);
    log(`round ${n}/${ROUNDS} ${v.label}: ${us(o)} µs a request, the whole service ${us(w)} µs`);
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
    `${machine()}; wrk -c${CONNECTIONS} on each of two servers sharing a core, ${ROUNDS} rounds × ${SECONDS} s`,
    '',
    '| variant | req/s (sharing the core) | p99 ms | CPU µs/request | less than the whole service (µs/request) | each round |',
    '|---|--:|--:|--:|--:|---|',
    ...lines,
  ].join('\n');
}

c.runMain(async () => {
  if (!WRK) throw new Error('The ablation loads two servers at once with wrk: apt-get install wrk');
  log(machine());
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
