import { RunningProcess } from '../src/testing/processes';
import * as c from './common';
import { goalsTable } from './goals';
import { LoadOptions, LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import type { StoreMemory } from './memory';
import * as r from './report';
import { plan } from './targets';
import { runWrk, WRK } from './wrk';

/** `npm run bench` (bench/README.md): the rows in alternating rounds, soaks, start-ups, the store's memory. */
const settings: r.Settings = {
  seconds: c.envNumber('BENCH_DURATION', 5),
  rounds: c.envNumber('BENCH_ROUNDS', 6),
  warmup: c.envNumber('BENCH_WARMUP', 2),
  pairWarmup: c.envNumber('BENCH_PAIR_WARMUP', 1),
  freshPair: c.envNumber('BENCH_FRESH_PAIR', 1),
  connections: c.envNumber('BENCH_CONNECTIONS', 50),
  soakSeconds: c.envNumber('BENCH_SOAK_SECONDS', 180),
  startUps: c.envNumber('BENCH_STARTUPS', 5),
  loadAtStart: r.loadAverage(),
  took: NaN,
};
const started = Date.now();
const log = c.runLog('bench');
/** The rows the second load generator loads too, beside the first (report.ts's GENERATORS). */
const BESIDE_TARGETS = ['service', 'bare-nest', 'express-ceiling'];
let redis: c.Server | undefined;

const urlOf = (t: r.Target) => `http://127.0.0.1:${t.server?.port ?? 0}${c.ROUTE}`;
const BODIES = { readme: c.README_BODY, largest: c.LARGEST_BODY, projected: c.PROJECTED_BODY };
const bodyOf = (row: Pick<r.Row, 'workload'>) => BODIES[row.workload];
type Runner = (options: LoadOptions) => Promise<LoadSummary>;
/** The rounds' load generator: wrk (C, one thread) when on PATH, else autocannon; the other beside. */
const FIRST: Runner = WRK ? runWrk : runLoad;
const BESIDE: Runner | undefined = WRK ? runLoad : undefined;
const load = (row: Pick<r.Row, 'target' | 'workload'>, seconds: number, run: Runner = FIRST) => {
  const [url, body] = [urlOf(row.target), JSON.stringify(bodyOf(row))];
  return run({ url, body, connections: settings.connections, seconds });
};

const start = (t: r.Target) =>
  c.startServer(t.name, t.command, t.env).then(
    (s) => log(`started ${t.name} (pid ${(t.server = s).process.pid}, port ${s.port})`),
    (error: Error) => log(`${t.name} did not start: ${error.message}`),
  );

/** Runs `requests` (resolving with the answers' count); for the Redis row, says if Redis ran fewer
 * commands than that: the service fell back to counting in memory. */
async function redisShortfall(row: r.Row, requests: () => Promise<number>) {
  if (!redis || row.target.name !== 'service-redis') return void (await requests());
  const before = await c.redisCommands(redis.port);
  const answered = await requests();
  const commands = (await c.redisCommands(redis.port)) - before - 1; // less our own INFO
  const share = ((Math.max(commands, 0) / answered) * 100).toFixed(0);
  if (commands < answered) return `only ${share} % of its requests reached Redis (in memory?)`;
}

/** Why one request's answer is wrong, if it is (checked per row before any load). */
const check = async (row: r.Row, status = row.status, limit = row.target.limit) =>
  row.target.server
    ? c.checkAnswer(urlOf(row.target), bodyOf(row), status, limit)
    : 'the process did not start';

/** One load of a round's length on a row, with the server's CPU over it. */
async function loadWithCpu(row: r.Row, run: Runner = FIRST): Promise<LoadSummary> {
  const pid = row.target.server?.process.pid ?? -1;
  const cpu = c.cpuSeconds(pid);
  const summary = await load(row, settings.seconds, run);
  summary.serverCpu = (c.cpuSeconds(pid) - cpu) / summary.seconds;
  return summary;
}

/** One round under the first generator; a wrong answer or a fall-back from Redis spoils the row. */
async function measure(row: r.Row): Promise<LoadSummary> {
  let summary!: LoadSummary;
  const shortfall = await redisShortfall(row, async () => (summary = await loadWithCpu(row)).total);
  row.problem ??= unexpectedAnswers(summary, row.status) ?? shortfall;
  row.rounds.push(summary);
  return summary;
}

/** One round under the generator beside, kept apart; a failure leaves the row's figures of it out. */
async function measureBeside(row: r.Row, beside: Runner): Promise<void> {
  const summary = await loadWithCpu(row, beside).catch((error: Error) => error);
  if (summary instanceof Error) return void (row.besideProblem ??= summary.message.slice(0, 200));
  row.besideProblem ??= unexpectedAnswers(summary, row.status);
  row.beside.push(summary);
  const figures = `${Math.round(summary.requestsPerSecond)} req/s, p99 ${summary.p99Ms.toFixed(1)} ms`;
  log(`  ${r.GENERATORS.beside}: ${figures}`);
}

const warmUp = async (row: r.Row) =>
  (row.problem ??= unexpectedAnswers(await load(row, settings.warmup), row.status));

/** Bytes per client of the in-memory store: memory.ts, a fresh process per figure. */
async function storeMemory(): Promise<StoreMemory[]> {
  const figures: StoreMemory[] = [];
  for (const args of ['ipv4 1e5', 'ipv4 1e6', 'ipv6 1e5', 'ipv6 1e6'].map((a) => a.split(' '))) {
    const command = ['--expose-gc', c.benchJs('memory'), 'store', ...args];
    const child = RunningProcess.start(process.execPath, command, { name: 'memory.js' });
    if ((await child.exited).code !== 0) throw new Error(`memory.js: ${child.output}`);
    figures.push(JSON.parse(child.stdout) as StoreMemory);
  }
  return figures;
}

/** The goals' pair: the service and the bare Nest route under the README's body, if planned. */
const goalPair = (rows: r.Row[]): r.Row[] =>
  r.GOAL_PAIR.map((name) => rows.find((x) => x.target.name === name && x.workload === 'readme'))
    .filter((x) => x !== undefined)
    .filter((x) => !x.problem);

/** The goals' pair in the order it runs in `round`: the service leading in odd rounds. */
function pairOf(rows: r.Row[], round: number): r.Row[] {
  const pair = goalPair(rows);
  return round % 2 === 0 ? pair.reverse() : pair;
}

/**
 * The rows of one round in the order they run: the goals' pair (the service and the bare Nest
 * route) first and back to back, which leads alternating (pairOf), then the others in the table's
 * order. The host's speed drifts over a round (the bare route alone ran 9,000 to 13,800 req/s from
 * run to run here), so the goals compare each round's pair (goals.ts, pairedRatio), and neither
 * side always runs first.
 */
function roundOrder(rows: r.Row[], round: number): r.Row[] {
  const first = pairOf(rows, round);
  return [...first, ...rows.filter((x) => !first.includes(x))];
}

/**
 * The pair's warm-up before each round, unrecorded, the one leading last so that it is measured
 * straight after its own. The pair last ran a round ago, the other rows between; the one leading
 * after that pause started slowly (its p99 250 to 430 ms in a run of 27 November, where the
 * other's was a tenth of that), and with both warmed in one order, the service was slower in the
 * rounds it led in two runs out of two (bench/README.md).
 */
async function warmPair(rows: r.Row[], round: number): Promise<void> {
  if (settings.pairWarmup <= 0) return;
  for (const row of pairOf(rows, round).reverse()) await load(row, settings.pairWarmup);
}

/**
 * The pair in fresh processes for every round after the first, each warmed three times as long
 * as at the start (BENCH_FRESH_PAIR=0 keeps them). One process of a build can run a few per cent
 * faster or slower than the next for its whole life (its code's layout, the compiler's choices):
 * two processes of one variant ran 0.90 and 1.03 × a third, in paired rounds on 27 November.
 * Fresh pairs make the median a median over processes too.
 */
async function freshPair(rows: r.Row[], round: number): Promise<void> {
  if (!settings.freshPair || round === 1) return;
  for (const row of goalPair(rows)) {
    await row.target.server?.process.stop(5_000);
    await start(row.target);
    // As long as the ablation's first warm-up: a new process is still compiling its hot paths.
    row.problem ??= unexpectedAnswers(await load(row, 3 * settings.warmup), row.status);
  }
}

/** The rounds, the rows alternating within each; the second generator after the first on its rows. */
async function rounds(rows: r.Row[], peer: r.Target) {
  const besides = (row: r.Row) =>
    row.workload === 'readme' && BESIDE_TARGETS.includes(row.target.name);
  for (let round = 1; round <= settings.rounds; round++) {
    await freshPair(rows, round);
    await warmPair(rows, round);
    for (const row of roundOrder(rows, round).filter((x) => !x.problem)) {
      // The stock throttler's cost grows with a client's hits: a fresh peer each round.
      if (row.target === peer && round > 1) {
        await row.target.server?.process.stop(5_000);
        await start(row.target);
        await warmUp(row);
      }
      const s = await measure(row);
      const figures = `${Math.round(s.requestsPerSecond)} req/s, p99 ${s.p99Ms.toFixed(1)} ms`;
      const cpu = `server CPU ${((s.serverCpu ?? NaN) * 100).toFixed(0)} %`;
      log(
        `round ${round}/${settings.rounds} ${row.label}: ${figures}, ${cpu} ${row.problem ?? ''}`,
      );
      if (BESIDE && besides(row)) await measureBeside(row, BESIDE);
    }
  }
}

/** Full load on a running target for the soak's length, its RSS every 10 s and once after. */
async function soak(target: r.Target, label: string): Promise<r.Soak | undefined> {
  if (!settings.soakSeconds || !target.server) return undefined;
  log(`soak: ${settings.soakSeconds} s at full load on ${target.name}, RSS every 10 s`);
  const pid = target.server.process.pid;
  const samples = [c.rssBytes(pid)];
  const timer = setInterval(() => samples.push(c.rssBytes(pid)), 10e3);
  const summary = await load({ target, workload: 'readme' }, settings.soakSeconds);
  clearInterval(timer);
  samples.push(c.rssBytes(pid));
  const problem = unexpectedAnswers(summary, 200);
  log(`soak RSS of ${target.name} (MiB): ${samples.map(r.mib).join(', ')} ${problem ?? ''}`);
  return { name: target.name, label, samples, problem };
}

/** Spawn to first answer of each target, a fresh process each time, the targets alternating. */
async function startUps(targets: [r.Target, string][]): Promise<r.StartUp[]> {
  const results = targets.map(([t, label]) => ({ name: t.name, label, seconds: [] as number[] }));
  for (let i = 0; i < settings.startUps; i++) {
    for (const [n, [t]] of targets.entries()) {
      const seconds = await c.firstAnswerSeconds(`start-up-${t.name}`, t.command, t.env);
      results[n].seconds.push(seconds);
    }
  }
  results.forEach((s) =>
    log(`start-up of ${s.name} (s): ${s.seconds.map((n) => r.fixed(n)).join(', ')}`),
  );
  return settings.startUps ? results : [];
}

c.runMain(async () => {
  log(`${r.machine()}; load average ${settings.loadAtStart}`);
  log(c.CAN_PIN ? `servers on core ${c.SERVER_CPU}, load on core ${c.LOAD_CPU}` : 'unpinned');
  redis = await c.startRedis();
  if (!redis) log('redis-server not found: no Redis row (apt-get install redis-server)');
  if (!WRK) log('wrk not on PATH (or BENCH_WRK=0): autocannon alone loads the rows');
  const { rows, service, bareNest, peer } = plan(redis?.port);
  const targets = [...new Set(rows.map((row) => row.target))];
  for (const t of targets) await start(t);
  // The 429 row's one allowed request is spent first.
  for (const row of rows)
    row.problem = (row.status === 429 && (await check(row, 200, 1))) || (await check(row));
  rows.filter((x) => x.problem).forEach((x) => log(`${x.label}: left out, ${x.problem}`));
  const { warmup, seconds, connections } = settings;
  log(
    `${warmup} s warm-up a row, ${settings.rounds} rounds × ${seconds} s, ${connections} connections`,
  );
  for (const row of rows.filter((x) => !x.problem)) await warmUp(row);
  await rounds(rows, peer);
  rows.forEach((row) => (row.rss = c.rssBytes(row.target.server?.process.pid ?? -1)));
  log('in-memory store: bytes per client at 100k and 1M clients, IPv4 and IPv6 keys');
  const store = storeMemory(); // measured during the first soak; a failure is reported after it
  store.catch(() => undefined);
  const base: [r.Target, string][] = [
    [service, 'the service (in-memory store)'],
    [bareNest, 'the bare Nest route'],
  ];
  const soaks = [await soak(...base[0]), await soak(...base[1])];
  const memory = await store;
  memory.forEach((m) => log(`  ${m.kind} ${m.clients}: ${m.bytesPerClient.toFixed(1)} B/client`));
  stopLoad();
  const ups = await startUps(base).catch(
    (error: Error) => void log(`start-up not measured: ${error.message}`),
  );
  for (const server of [...targets.map((t) => t.server), redis]) await server?.process.stop(5_000);
  settings.took = (Date.now() - started) / 1000;
  const results = { rows, store: memory, soaks: soaks.filter((s) => !!s), startUps: ups ?? [] };
  log(`written to ${r.writeResults(settings, results, goalsTable(results))}`);
});
