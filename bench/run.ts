import { RunningProcess } from '../src/testing/processes';
import * as c from './common';
import { LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import type { StoreMemory } from './memory';
import * as r from './report';

/** `npm run bench` (bench/README.md): the rows in alternating rounds, the soak, the store's memory. */
const settings: r.Settings = {
  seconds: c.envNumber('BENCH_DURATION', 10),
  rounds: c.envNumber('BENCH_ROUNDS', 3),
  warmup: c.envNumber('BENCH_WARMUP', 2),
  connections: c.envNumber('BENCH_CONNECTIONS', 50),
  soakSeconds: c.envNumber('BENCH_SOAK_SECONDS', 180),
  loadAtStart: r.loadAverage(),
  took: NaN,
};
const started = Date.now();
const log = (line: string) =>
  console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);
const NO_LIMIT = 1e9; // never reached: the service counts every request and refuses none
let redis: c.Server | undefined;

const urlOf = (t: r.Target) => `http://127.0.0.1:${t.server?.port ?? 0}${c.ROUTE}`;
const BODIES = { readme: c.README_BODY, largest: c.LARGEST_BODY, projected: c.PROJECTED_BODY };
const bodyOf = (row: Pick<r.Row, 'workload'>) => BODIES[row.workload];
const load = (row: Pick<r.Row, 'target' | 'workload'>, seconds: number) => {
  const [url, body] = [urlOf(row.target), JSON.stringify(bodyOf(row))];
  return runLoad({ url, body, connections: settings.connections, seconds });
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

/** One measured round, with the server's CPU; a wrong answer or a fall-back from Redis spoils it. */
async function measure(row: r.Row): Promise<LoadSummary> {
  const pid = row.target.server?.process.pid ?? -1;
  let summary!: LoadSummary;
  const shortfall = await redisShortfall(row, async () => {
    const cpu = c.cpuSeconds(pid);
    summary = await load(row, settings.seconds);
    summary.serverCpu = (c.cpuSeconds(pid) - cpu) / summary.seconds;
    return summary.total;
  });
  row.problem ??= unexpectedAnswers(summary, row.status) ?? shortfall;
  row.rounds.push(summary);
  return summary;
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

c.runMain(async () => {
  log(`${r.machine()}; load average ${settings.loadAtStart}`);
  log(c.CAN_PIN ? `servers on core ${c.SERVER_CPU}, load on core ${c.LOAD_CPU}` : 'unpinned');
  redis = await c.startRedis();
  if (!redis) log('redis-server not found: no Redis row (apt-get install redis-server)');
  const target = (name: string, args: string[], env = {}, limit = NO_LIMIT): r.Target => {
    const command = [process.execPath, ...args];
    return { name, command, env: { ...c.SERVER_ENV, ...env }, limit };
  };
  const service = (name: string, limit: number, env = {}) =>
    target(name, [c.MAIN_JS], { RATE_LIMIT_PER_DAY: `${limit}`, ...env }, limit);
  const peer = target('peer', [c.benchJs('peer')]);
  const bare = target('peer-bare', [c.benchJs('peer')], { PEER_THROTTLER: 'off' });
  const express = target('express-ceiling', [c.benchJs('ceilings'), 'express']);
  const http = target('http-ceiling', [c.benchJs('ceilings'), 'http']);
  const inMemory = service('service', NO_LIMIT);
  const env = { RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${redis?.port}` };
  const viaRedis = redis && service('service-redis', NO_LIMIT, env);
  const rows: r.Row[] = [];
  const row = (label: string, t?: r.Target, status = 200, workload: r.Row['workload'] = 'readme') =>
    t && rows.push({ label, target: t, status, workload, rounds: [], rss: NaN });
  row('service (in-memory store)', inMemory);
  row('service (Redis store)', viaRedis);
  row('peer: Nest + ValidationPipe + stock throttler', peer);
  if (process.env.BENCH_PEER_BARE !== '0')
    row('peer without its throttler (Nest + ValidationPipe)', bare);
  row('Express 5 ceiling', express);
  row('node:http ceiling', http);
  row('service, 429 path (over its limit)', service('service-429', 1), 429);
  row('service, largest answer', inMemory, 200, 'largest');
  row('service, largest answer with projectionYears: 10', inMemory, 200, 'projected');
  row('Express 5 ceiling, largest answer', express, 200, 'largest');
  row('node:http ceiling, largest answer', http, 200, 'largest');
  const targets = [...new Set(rows.map((r) => r.target))];
  for (const t of targets) await start(t);
  // The 429 row's one allowed request is spent first.
  for (const r of rows)
    r.problem = (r.status === 429 && (await check(r, 200, 1))) || (await check(r));
  rows.filter((r) => r.problem).forEach((r) => log(`${r.label}: left out, ${r.problem}`));
  const { warmup, rounds, seconds, connections, soakSeconds } = settings;
  log(`${warmup} s warm-up a row, ${rounds} rounds × ${seconds} s, ${connections} connections`);
  for (const r of rows.filter((x) => !x.problem)) await warmUp(r);
  for (let round = 1; round <= rounds; round++) {
    for (const r of rows.filter((x) => !x.problem)) {
      // The stock throttler's cost grows with a client's hits: a fresh peer each round.
      if (r.target === peer && round > 1) {
        await r.target.server?.process.stop(5_000);
        await start(r.target);
        await warmUp(r);
      }
      const s = await measure(r);
      const figures = `${Math.round(s.requestsPerSecond)} req/s, p99 ${s.p99Ms.toFixed(1)} ms`;
      const cpu = `server CPU ${((s.serverCpu ?? NaN) * 100).toFixed(0)} %`;
      log(`round ${round}/${rounds} ${r.label}: ${figures}, ${cpu} ${r.problem ?? ''}`);
    }
  }
  rows.forEach((r) => (r.rss = c.rssBytes(r.target.server?.process.pid ?? -1)));
  log('in-memory store: bytes per client at 100k and 1M clients, IPv4 and IPv6 keys');
  const store = storeMemory(); // measured during the soak; a failure is reported after it
  store.catch(() => undefined);
  let soaked; // full load on the in-memory service, its RSS sampled every 10 s from the start
  if (soakSeconds && inMemory.server) {
    log(`soak: ${soakSeconds} s at full load on the service, RSS every 10 s`);
    const pid = inMemory.server.process.pid;
    const samples = [c.rssBytes(pid)];
    const timer = setInterval(() => samples.push(c.rssBytes(pid)), 10e3);
    const summary = await load({ target: inMemory, workload: 'readme' }, soakSeconds);
    clearInterval(timer);
    soaked = { samples, problem: unexpectedAnswers(summary, 200) };
    log(`soak RSS (MiB): ${samples.map(r.mib).join(', ')} ${soaked.problem ?? ''}`);
  }
  const memory = await store;
  memory.forEach((m) => log(`  ${m.kind} ${m.clients}: ${m.bytesPerClient.toFixed(1)} B/client`));
  stopLoad();
  for (const server of [...targets.map((t) => t.server), redis]) await server?.process.stop(5_000);
  settings.took = (Date.now() - started) / 1000;
  log(`written to ${r.writeResults(settings, rows, memory, soaked)}`);
});
