import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as c from './common';
import { type LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import { fixed, machine, median } from './report';
import { runWrk, WRK } from './wrk';

/**
 * `npm run bench:cold` (bench/README.md, "From the first request"): what a new replica does in its
 * first seconds, against the bare Nest route. Each round starts a fresh process of each side (the
 * side that goes first alternates), times spawn to its first 200 (start), loads it at once for
 * COLD seconds (cold), WARM seconds more (dropped), then STEADY seconds (steady). Each round gives
 * one ratio or difference per figure; the figures are their medians.
 */
const ROUNDS = c.envNumber('BENCH_ROUNDS', 6);
const COLD = c.envNumber('BENCH_COLD_SECONDS', 5);
const WARM = c.envNumber('BENCH_WARM_SECONDS', 3);
const STEADY = c.envNumber('BENCH_STEADY_SECONDS', 5);
const CONNECTIONS = c.envNumber('BENCH_CONNECTIONS', 50);
const ENV = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: '1000000000' };
/** Issue 39's goals: cold p99, start, steady throughput and p99. */
const GOALS = { coldP99: 1.25, startSeconds: 0.1, steady: 0.95, steadyP99: 1.1 };

type Side = 'service' | 'bare';
interface Life {
  start: number;
  cold: LoadSummary;
  steady: LoadSummary;
}

const COMMANDS: Record<Side, string[]> = {
  service: [process.execPath, ...c.SERVICE_ARGS],
  bare: [process.execPath, c.benchJs('bare-nest')],
};
const log = c.runLog('cold');

const load = (port: number, seconds: number) =>
  (WRK ? runWrk : runLoad)({
    url: `http://127.0.0.1:${port}${c.ROUTE}`,
    body: JSON.stringify(c.README_BODY),
    connections: CONNECTIONS,
    seconds,
  });

/** One fresh process: its start, its first COLD seconds of load, and its STEADY seconds later. */
async function life(side: Side, round: number): Promise<Life> {
  const { server, seconds } = await c.untilFirstAnswer(`cold-${side}`, COMMANDS[side], ENV);
  try {
    const cold = await load(server.port, COLD);
    await load(server.port, WARM);
    const steady = await load(server.port, STEADY);
    const problem = unexpectedAnswers(cold, 200) ?? unexpectedAnswers(steady, 200);
    if (problem) throw new Error(`${side}: ${problem}`);
    const figures = (s: LoadSummary) =>
      `${Math.round(s.requestsPerSecond)} req/s p99 ${fixed(s.p99Ms)} ms`;
    log(
      `round ${round} ${side}: start ${fixed(seconds, 3)} s; cold ${figures(cold)}; steady ${figures(steady)}`,
    );
    return { start: seconds, cold, steady };
  } finally {
    await server.process.stop(5_000);
  }
}

interface Round {
  service: Life;
  bare: Life;
}

const list = (values: number[], digits = 2) => values.map((v) => fixed(v, digits)).join(' · ');
const verdict = (ok: boolean) => (ok ? 'PASS' : '**FAIL**');

function report(rounds: Round[]): string {
  const per = (f: (r: Round) => number) => rounds.map(f);
  const coldP99 = per((r) => r.service.cold.p99Ms / r.bare.cold.p99Ms);
  const coldRps = per((r) => r.service.cold.requestsPerSecond / r.bare.cold.requestsPerSecond);
  const start = per((r) => r.service.start - r.bare.start);
  const steady = per((r) => r.service.steady.requestsPerSecond / r.bare.steady.requestsPerSecond);
  const steadyP99 = per((r) => r.service.steady.p99Ms / r.bare.steady.p99Ms);
  const sides = (['service', 'bare'] as const).map((side) => {
    const of = (f: (l: Life) => number) => median(rounds.map((r) => f(r[side])));
    return `| ${side} | ${fixed(
      of((l) => l.start),
      3,
    )} | ${Math.round(of((l) => l.cold.requestsPerSecond))} | ${fixed(of((l) => l.cold.p99Ms))} | ${Math.round(of((l) => l.steady.requestsPerSecond))} | ${fixed(of((l) => l.steady.p99Ms))} |`;
  });
  const m = (values: number[]) => median(values);
  return `# From the first request: a fresh process against the bare Nest route

${machine()}; ${c.CAN_PIN ? `servers on core ${c.SERVER_CPU}, load on core ${c.LOAD_CPU}` : 'unpinned'}; ${WRK ? 'wrk (`-t1`)' : 'autocannon'}, ${CONNECTIONS} connections, the README body; ${rounds.length} rounds, a fresh process of each side a round (alternating which starts first): start, then ${COLD} s of load (cold), ${WARM} s more, then ${STEADY} s (steady).

| side (medians) | start s | cold req/s | cold p99 ms | steady req/s | steady p99 ms |
|---|--:|--:|--:|--:|--:|
${sides.join('\n')}

| goal | each round | median | result |
|---|---|--:|---|
| cold: first ${COLD} s p99 ≤ ${GOALS.coldP99} × the bare route's | ${list(coldP99)} | ${fixed(m(coldP99))}× | ${verdict(m(coldP99) <= GOALS.coldP99)} |
| start: first answer ≤ ${GOALS.startSeconds} s after the bare route's | ${list(start, 3)} | ${m(start) >= 0 ? '+' : ''}${fixed(m(start), 3)} s | ${verdict(m(start) <= GOALS.startSeconds)} |
| steady: ≥ ${GOALS.steady} × the bare route's req/s | ${list(steady)} | ${fixed(m(steady), 3)}× | ${verdict(m(steady) >= GOALS.steady)} |
| steady: p99 ≤ ${GOALS.steadyP99} × the bare route's | ${list(steadyP99)} | ${fixed(m(steadyP99))}× | ${verdict(m(steadyP99) <= GOALS.steadyP99)} |
| (cold req/s, for reference) | ${list(coldRps)} | ${fixed(m(coldRps), 3)}× | |
`;
}

c.runMain(async () => {
  if (ROUNDS < 1) throw new Error('BENCH_ROUNDS >= 1');
  try {
    const rounds: Round[] = [];
    for (let n = 1; n <= ROUNDS; n++) {
      const order: Side[] = n % 2 === 1 ? ['service', 'bare'] : ['bare', 'service'];
      const lives = {} as Round;
      for (const side of order) lives[side] = await life(side, n);
      rounds.push(lives);
    }
    const text = report(rounds);
    mkdirSync(c.OUT_DIR, { recursive: true });
    writeFileSync(join(c.OUT_DIR, 'cold.md'), text);
    console.log(`\n${text}\n(written to bench/.out/cold.md)`);
  } finally {
    stopLoad();
  }
});
