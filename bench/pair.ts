import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as c from './common';
import { type LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import { fixed, machine, median } from './report';
import { runWrk, WRK } from './wrk';

/**
 * `npm run bench:pair` (bench/README.md, "The goal, with processes averaged out"): the goals'
 * throughput and p99 ratio, the service against the bare Nest route, from several processes of
 * each. A process of a build can run a few per cent faster or slower than the next for its whole
 * life, and the host's speed drifts from round to round; so every process is loaded once a round,
 * in an order that turns each round, and each round gives one ratio: the service processes' mean
 * req/s over the bare ones'. The figure is the median of those ratios.
 */
const PROCESSES = c.envNumber('BENCH_PAIR_PROCESSES', 4);
const ROUNDS = c.envNumber('BENCH_ROUNDS', 10);
const SECONDS = c.envNumber('BENCH_DURATION', 3);
const WARMUP = c.envNumber('BENCH_WARMUP', 3);
const CONNECTIONS = c.envNumber('BENCH_CONNECTIONS', 50);
const ENV = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: '1000000000' };
/** The goals of bench/README.md's table that this run checks. */
const GOALS = { throughput: 0.85, p99: 1.5 };

type Side = 'service' | 'bare';
interface Instance {
  name: string;
  side: Side;
  command: string[];
  server?: c.Server;
  runs: LoadSummary[];
  problem?: string;
}

const instance = (side: Side, n: number): Instance => ({
  name: `${side}-${n}`,
  side,
  command: [process.execPath, ...(side === 'service' ? c.SERVICE_ARGS : [c.benchJs('bare-nest')])],
  runs: [],
});
const INSTANCES: Instance[] = Array.from({ length: PROCESSES }, (_, i) => [
  instance('service', i + 1),
  instance('bare', i + 1),
]).flat();

const log = c.runLog('pair');

const load = (x: Instance, seconds: number) =>
  (WRK ? runWrk : runLoad)({
    url: `http://127.0.0.1:${x.server?.port ?? 0}${c.ROUTE}`,
    body: JSON.stringify(c.README_BODY),
    connections: CONNECTIONS,
    seconds,
  });

/** One round: every process once, the order turned by one place each round. */
async function round(n: number): Promise<void> {
  const order = c.turned(INSTANCES, n);
  for (const x of order.filter((y) => !y.problem)) {
    const summary = await load(x, SECONDS);
    x.problem ??= unexpectedAnswers(summary, 200);
    x.runs.push(summary);
    const figures = `${Math.round(summary.requestsPerSecond)} req/s, p99 ${fixed(summary.p99Ms)} ms`;
    log(`round ${n}/${ROUNDS} ${x.name}: ${figures}`);
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const of = (side: Side) => INSTANCES.filter((x) => x.side === side && !x.problem);

/** Each round's ratios: service over bare, the mean req/s and the median p99 of each side. */
function roundRatios(): { throughput: number[]; p99: number[] } {
  const throughput: number[] = [];
  const p99: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const [service, bare] = [of('service'), of('bare')].map((xs) => xs.map((x) => x.runs[r]));
    throughput.push(
      mean(service.map((s) => s.requestsPerSecond)) / mean(bare.map((s) => s.requestsPerSecond)),
    );
    p99.push(median(service.map((s) => s.p99Ms)) / median(bare.map((s) => s.p99Ms)));
  }
  return { throughput, p99 };
}

/** The report: each process over the bare processes' mean, each round's ratios, the goals. */
function report(): string {
  const bareMean = mean(of('bare').map((x) => median(x.runs.map((s) => s.requestsPerSecond))));
  const processes = INSTANCES.map((x) => {
    const rps = median(x.runs.map((s) => s.requestsPerSecond));
    const p99 = median(x.runs.map((s) => s.p99Ms));
    const figures = `${Math.round(rps)} | ${fixed(rps / bareMean, 3)}× | ${fixed(p99)}`;
    return `| ${x.name} | ${x.problem ? `left out: ${x.problem}` : figures} |`;
  });
  const ratios = roundRatios();
  const [throughput, p99] = [median(ratios.throughput), median(ratios.p99)];
  const verdict = (ok: boolean) => (ok ? 'PASS' : '**FAIL**');
  const list = (values: number[]) => values.map((v) => fixed(v)).join(' · ');
  return `# The goals' pair, processes averaged out

${machine()}; ${c.CAN_PIN ? `servers on core ${c.SERVER_CPU}, load on core ${c.LOAD_CPU}` : 'unpinned'}; ${WRK ? 'wrk (`-t1`)' : 'autocannon'}, ${CONNECTIONS} connections, the README body; ${PROCESSES} processes of each, ${ROUNDS} rounds × ${SECONDS} s after a ${WARMUP} s warm-up each.

| process | req/s (median) | over the bare processes' mean | p99 ms (median) |
|---|--:|--:|--:|
${processes.join('\n')}

| goal | each round | median | result |
|---|---|--:|---|
| service ≥ ${GOALS.throughput} × the bare Nest route, req/s | ${list(ratios.throughput)} | ${fixed(throughput, 3)}× (mean ${fixed(mean(ratios.throughput), 3)}×) | ${verdict(throughput >= GOALS.throughput)} |
| p99 ≤ ${GOALS.p99} × the bare Nest route's | ${list(ratios.p99)} | ${fixed(p99)}× | ${verdict(p99 <= GOALS.p99)} |
`;
}

c.runMain(async () => {
  if (PROCESSES < 1 || ROUNDS < 1) throw new Error('BENCH_PAIR_PROCESSES and BENCH_ROUNDS >= 1');
  try {
    for (const x of INSTANCES) x.server = await c.startServer(x.name, x.command, ENV);
    log(`${INSTANCES.length} processes started; warm-up ${WARMUP} s each`);
    for (const x of INSTANCES) x.problem = unexpectedAnswers(await load(x, WARMUP), 200);
    for (let n = 1; n <= ROUNDS; n++) await round(n);
    if (of('service').length === 0 || of('bare').length === 0) {
      throw new Error(`no figures: ${INSTANCES.map((x) => `${x.name} ${x.problem}`).join('; ')}`);
    }
    const text = report();
    mkdirSync(c.OUT_DIR, { recursive: true });
    writeFileSync(join(c.OUT_DIR, 'pair.md'), text);
    console.log(`\n${text}\n(written to bench/.out/pair.md)`);
  } finally {
    stopLoad();
    for (const x of INSTANCES) await x.server?.process.stop(5_000);
  }
});
