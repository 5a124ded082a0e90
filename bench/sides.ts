import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as c from './common';
import { type LoadSummary, runLoad, stopLoad, unexpectedAnswers } from './load';
import { fixed, machine, median } from './report';
import { runWrk, WRK } from './wrk';

/**
 * The same build run several ways, each against the first (bench/README.md, "Traces" and "The
 * runtime"). `npm run bench:tracing`: traces off, on with every request sampled, on with 1 %
 * sampled, exporting OTLP/HTTP protobuf to a receiver on the load generator's core, and with
 * BENCH_BEFORE_MAIN (another build's dist/main.js) that build too.
 * `npm run bench:runtime`: the pinned Node against BENCH_OTHER_NODE (another Node's binary).
 * BENCH_PROCESSES processes of each side (a process can run a few per cent faster than the next for
 * its whole life), warmed up, then each loaded once a round in an order that turns each round; a
 * round gives each side's mean req/s over the first side's; the figures are the rounds' medians.
 */
const PROCESSES = c.envNumber('BENCH_PROCESSES', 2);
const ROUNDS = c.envNumber('BENCH_ROUNDS', 6);
const SECONDS = c.envNumber('BENCH_DURATION', 4);
const WARMUP = c.envNumber('BENCH_WARMUP', 5);
const CONNECTIONS = c.envNumber('BENCH_CONNECTIONS', 50);
const ENV = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: '1000000000' };

interface Side {
  name: string;
  env: Record<string, string>;
  node?: string;
  /** Another build's dist/main.js. */
  main?: string;
  /** Per process, per round. */
  servers: c.Server[];
  runs: LoadSummary[][];
}

const PRESET = process.argv[2] === 'runtime' ? 'runtime' : 'tracing';
const log = c.runLog(PRESET);

const load = (server: c.Server, seconds: number) =>
  (WRK ? runWrk : runLoad)({
    url: `http://127.0.0.1:${server.port}${c.ROUTE}`,
    body: JSON.stringify(c.README_BODY),
    connections: CONNECTIONS,
    seconds,
  });

function runtimes(): Side[] {
  const other = process.env.BENCH_OTHER_NODE;
  if (!other) throw new Error('BENCH_OTHER_NODE: the path of the Node binary to compare with');
  const version = (node: string) =>
    spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return [
    { name: `Node ${process.version} (pinned)`, env: {}, servers: [], runs: [] },
    { name: `Node ${version(other)}`, env: {}, node: other, servers: [], runs: [] },
  ];
}

function tracing(endpoint: string, before = process.env.BENCH_BEFORE_MAIN): Side[] {
  const on = {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  };
  return [
    { name: 'off', env: {}, servers: [], runs: [] },
    {
      name: 'on, 100 % sampled',
      env: { ...on, OTEL_TRACES_SAMPLER_ARG: '1' },
      servers: [],
      runs: [],
    },
    {
      name: 'on, 1 % sampled',
      env: { ...on, OTEL_TRACES_SAMPLER_ARG: '0.01' },
      servers: [],
      runs: [],
    },
    ...(before
      ? [{ name: `the build of ${before}`, env: {}, main: before, servers: [], runs: [] }]
      : []),
  ];
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
/** A side's figure in round r: its processes' mean req/s, or median p99. */
const rpsIn = (side: Side, r: number) => mean(side.runs.map((runs) => runs[r].requestsPerSecond));
const p99In = (side: Side, r: number) => median(side.runs.map((runs) => runs[r].p99Ms));

function report(all: Side[], setup: string): string {
  const [first] = all;
  const rounds = Array.from({ length: ROUNDS }, (_, r) => r);
  const rows = all.map((side) => {
    const ratio = (f: (s: Side, r: number) => number) =>
      median(rounds.map((r) => f(side, r) / f(first, r)));
    const rps = median(rounds.map((r) => rpsIn(side, r)));
    const p99 = median(rounds.map((r) => p99In(side, r)));
    return `| ${side.name} | ${Math.round(rps)} | ${fixed(
      ratio(rpsIn),
      3,
    )}× | ${fixed(p99)} | ${fixed(ratio(p99In))}× |`;
  });
  return `# ${PRESET === 'tracing' ? 'Traces: their cost' : 'The runtime'} on one core

${machine()}; ${c.CAN_PIN ? `servers on core ${c.SERVER_CPU}, load${setup} on core ${c.LOAD_CPU}` : 'unpinned'}; ${WRK ? 'wrk (`-t1`)' : 'autocannon'}, ${CONNECTIONS} connections, the README body, no traceparent; ${PROCESSES} processes of each side, ${WARMUP} s warm-up, ${ROUNDS} rounds × ${SECONDS} s, the order turned each round.

| side | req/s (median) | over the first (median of rounds) | p99 ms (median) | p99 over the first |
|---|--:|--:|--:|--:|
${rows.join('\n')}
`;
}

c.runMain(async () => {
  const sinkCommand = [process.execPath, c.benchJs('otlp-sink')];
  const sink =
    PRESET === 'tracing'
      ? await c.startServer('otlp-sink', sinkCommand, {}, c.LOAD_CPU)
      : undefined;
  const all = sink ? tracing(`http://127.0.0.1:${sink.port}`) : runtimes();
  const processes = all.flatMap((side) =>
    Array.from({ length: PROCESSES }, (_, i) => ({ side, i })),
  );
  try {
    for (const { side, i } of processes) {
      const command = [side.node ?? process.execPath, ...c.SERVICE_FLAGS, side.main ?? c.MAIN_JS];
      const server = await c.startServer(`${PRESET}-${all.indexOf(side)}-${i}`, command, {
        ...ENV,
        ...side.env,
      });
      side.servers.push(server);
      side.runs.push([]);
      const problem = unexpectedAnswers(await load(server, WARMUP), 200);
      if (problem) throw new Error(`${side.name}: ${problem}`);
    }
    for (let n = 1; n <= ROUNDS; n++) {
      for (const { side, i } of c.turned(processes, n)) {
        const summary = await load(side.servers[i], SECONDS);
        side.runs[i][n - 1] = summary;
        const figures = `${Math.round(summary.requestsPerSecond)} req/s, p99 ${fixed(summary.p99Ms)} ms`;
        log(`round ${n}/${ROUNDS} ${side.name} #${i + 1}: ${figures}`);
      }
    }
    const text = report(all, sink ? ' and the OTLP receiver' : '');
    mkdirSync(c.OUT_DIR, { recursive: true });
    writeFileSync(join(c.OUT_DIR, `${PRESET}.md`), text);
    console.log(`\n${text}\n(written to bench/.out/${PRESET}.md)`);
  } finally {
    stopLoad();
    for (const server of all.flatMap((side) => side.servers)) await server.process.stop(5_000);
    await sink?.process.stop(5_000);
  }
});
