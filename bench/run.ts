import { LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import { measureStoreMemory } from './memory';
import { checkRows, redisShortfall } from './checks';
import { envNumber, README_BODY } from './project';
import { CAN_PIN, cpuSeconds, LOAD_CPU, rssBytes, Running, SERVER_CPU } from './processes';
import { stopAllOnExit } from './processes';
import { HAS_REDIS, startRedis } from './redis';
import { loadAverage, machine, RowResult } from './report';
import { writeResults } from './results-file';
import { soak, SoakResult } from './soak';
import { defineRows, defineTargets, Row, startTarget, Target, urlOf } from './targets';

/** `npm run bench`: the table and its goals (bench/README.md), printed and written to bench/RESULTS.md. */
const SETTINGS = {
  seconds: envNumber('BENCH_DURATION', 10),
  rounds: envNumber('BENCH_ROUNDS', 3),
  warmup: envNumber('BENCH_WARMUP', 2),
  connections: envNumber('BENCH_CONNECTIONS', 50),
  soakSeconds: envNumber('BENCH_SOAK_SECONDS', 180),
};

const started = Date.now();
const log = (line: string) =>
  console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

const load = (row: Row, seconds: number): Promise<LoadSummary> =>
  runLoad({
    url: urlOf(row.target),
    body: JSON.stringify(row.body),
    connections: SETTINGS.connections,
    seconds,
  });

async function startTargets(targets: Target[]): Promise<void> {
  for (const target of targets) {
    try {
      await startTarget(target);
      log(`started ${target.name} (pid ${target.running?.pid}, port ${target.running?.port})`);
    } catch (error) {
      log(`${target.name} did not start: ${(error as Error).message}`);
    }
  }
}

/** One measured round of one row; a wrong answer or a fall-back from Redis spoils the row. */
async function measure(row: Row, redis: Running | undefined): Promise<LoadSummary> {
  let summary!: LoadSummary;
  const pid = row.target.running?.pid ?? -1;
  const run = async () => {
    const cpuBefore = cpuSeconds(pid);
    summary = await load(row, SETTINGS.seconds);
    summary.serverCpu = (cpuSeconds(pid) - cpuBefore) / summary.seconds;
    return summary.total;
  };
  const isRedis = redis && row.target.name === 'service-redis';
  const shortfall = isRedis ? await redisShortfall(redis, run) : void (await run());
  row.problem ??= unexpectedAnswers(summary, row.status) ?? shortfall;
  return summary;
}

async function warmUp(row: Row): Promise<void> {
  row.problem ??= unexpectedAnswers(await load(row, SETTINGS.warmup), row.status);
}

async function rounds(rows: Row[], redis: Running | undefined): Promise<Map<Row, LoadSummary[]>> {
  const measured = new Map<Row, LoadSummary[]>(rows.map((row) => [row, []]));
  for (let round = 1; round <= SETTINGS.rounds; round++) {
    for (const row of rows.filter((r) => !r.problem)) {
      if (row.target.restartEachRound && round > 1) {
        await row.target.running?.stop();
        await startTarget(row.target);
        await warmUp(row);
      }
      const s = await measure(row, redis);
      measured.get(row)?.push(s);
      const figures = `${Math.round(s.requestsPerSecond)} req/s, p99 ${s.p99Ms.toFixed(1)} ms`;
      const cpu = `server CPU ${((s.serverCpu ?? NaN) * 100).toFixed(0)} %`;
      log(
        `round ${round}/${SETTINGS.rounds} ${row.label}: ${figures}, ${cpu} ${row.problem ?? ''}`,
      );
    }
  }
  return measured;
}

/** The soak on the warm in-memory service, with the store's memory measured meanwhile. */
async function soakAndStoreMemory(service: Target) {
  log('in-memory store: bytes per client at 100k and 1M clients, IPv4 and IPv6 keys');
  const store = measureStoreMemory();
  let soaked: SoakResult | undefined;
  if (SETTINGS.soakSeconds && service.running) {
    log(`soak: ${SETTINGS.soakSeconds} s at full load on the service, RSS every 10 s`);
    const row: Row = {
      label: 'soak',
      target: service,
      workload: 'readme',
      body: README_BODY,
      status: 200,
    };
    soaked = await soak(service.running.pid, load(row, SETTINGS.soakSeconds));
    log(`soak RSS (MiB): ${soaked.points} ${soaked.problem ?? ''}`);
  }
  const memory = await store;
  memory.forEach((s) => log(`  ${s.kind} ${s.clients}: ${s.bytesPerClient.toFixed(1)} B/client`));
  return { store: memory, soaked };
}

async function main(): Promise<void> {
  stopAllOnExit();
  const loadAtStart = loadAverage();
  log(`${machine()}; load average ${loadAtStart}`);
  log(CAN_PIN ? `servers on core ${SERVER_CPU}, load on core ${LOAD_CPU}` : 'no taskset: unpinned');
  const redis = HAS_REDIS ? await startRedis() : undefined;
  if (!redis) log('redis-server not found: no Redis row (apt-get install redis-server)');
  const targets = defineTargets(redis && `redis://127.0.0.1:${redis.port}`);
  const rows = defineRows(targets);
  await startTargets(Object.values(targets).filter((t): t is Target => t !== undefined));
  await checkRows(rows, redis);
  rows.filter((r) => r.problem).forEach((r) => log(`${r.label}: left out, ${r.problem}`));
  const { warmup, rounds: n, seconds, connections } = SETTINGS;
  log(`warm-up ${warmup} s per row, then ${n} rounds × ${seconds} s at ${connections} connections`);
  const active = rows.filter((r) => !r.problem).length;
  const estimate = active * (warmup + n * seconds) + (n - 1) * (warmup + 2) + SETTINGS.soakSeconds;
  log(`about ${Math.round(estimate / 60)} min to go (${active} rows, soak included)`);
  for (const row of rows.filter((r) => !r.problem)) await warmUp(row);
  const measured = await rounds(rows, redis);
  const results: RowResult[] = rows.map((row) => ({
    row,
    rounds: measured.get(row) ?? [],
    rss: row.target.running ? rssBytes(row.target.running.pid) : Number.NaN,
  }));
  const { store, soaked } = await soakAndStoreMemory(targets.service);
  stopLoad();
  for (const target of Object.values(targets)) await target?.running?.stop();
  await redis?.stop();
  const took = (Date.now() - started) / 1000;
  const report = { settings: SETTINGS, results, store, soak: soaked, loadAtStart, seconds: took };
  log(`written to ${writeResults(report)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
