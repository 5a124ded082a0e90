import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADDITIONS, type Addition } from './assemble';
import { waitFor } from '../src/testing/processes';
import * as c from './common';
import { type LoadSummary, stopLoad, unexpectedAnswers } from './load';
import { fixed, machine, median, times } from './report';
import { tailOf } from './tail';
import { runWrk, WRK } from './wrk';

/**
 * `npm run bench:ablation` (bench/README.md, "Where the time goes"): the service, the service
 * without each of its additions (bench/variant.ts), and the bare Nest route, loaded by wrk in
 * turn, round after round. An addition's cost is the server CPU time per request it adds: the
 * whole service's, less the same without it, each the median over the rounds. Then the tail's evidence of the
 * service and the bare route (tail.ts). Prints both tables and writes them to bench/.out/.
 */
const ROUNDS = c.envNumber('BENCH_ROUNDS', 8);
const SECONDS = c.envNumber('BENCH_DURATION', 3);
const WARMUP = c.envNumber('BENCH_WARMUP', 2);
const CONNECTIONS = c.envNumber('BENCH_CONNECTIONS', 50);
const ENV = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: '1000000000' };

/** Every server has observe.js preloaded: its bytes allocated over each measured load. */
const OBSERVED = ['--require', c.benchJs('observe')];

interface Variant {
  label: string;
  command: string[];
  without?: readonly Addition[];
  server?: c.Server;
  runs: LoadSummary[];
  /** Bytes the heap took per request, each measured load. */
  allocated: number[];
  /** Resident memory after its last load. */
  rss?: number;
  problem?: string;
}

const variant = (label: string, without: readonly Addition[]): Variant => ({
  label,
  without,
  command: [process.execPath, ...OBSERVED, c.benchJs('variant'), ...without],
  runs: [],
  allocated: [],
});
const VARIANTS: Variant[] = [
  variant('the whole service', []),
  ...ADDITIONS.map((addition) => variant(`without ${addition}`, [addition])),
  variant('without any of them', ADDITIONS),
  {
    label: 'the bare Nest route',
    command: [process.execPath, ...OBSERVED, c.benchJs('bare-nest')],
    runs: [],
    allocated: [],
  },
];

const log = c.runLog('ablation');
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
 * Opens observe.js's window on `v`'s server; the function returned closes it and resolves with
 * the bytes allocated meanwhile (the line it writes to the server's stderr).
 */
function observedOver(v: Variant): () => Promise<number> {
  const child = v.server!.process;
  const lines = () => child.stderr.split('\n').filter((line) => line.startsWith('observe ')).length;
  const before = lines();
  child.signal('SIGUSR2');
  return async () => {
    child.signal('SIGUSR2');
    const written = () => Promise.resolve(lines() > before);
    await waitFor(`${v.label}'s allocation`, written, 5_000, 10);
    const last = child.stderr
      .split('\n')
      .filter((line) => line.startsWith('observe '))
      .at(-1)!;
    return (JSON.parse(last.slice('observe '.length)) as { allocatedBytes: number }).allocatedBytes;
  };
}

/**
 * One round: each variant in turn, starting further along each round. (Two servers loaded at once
 * on one core were tried, to share the host's slow spells: a server that idles between batches
 * pays more CPU time per request, so the lighter one looked as costly as the service.)
 */
async function round(n: number): Promise<void> {
  const order = c.turned(VARIANTS, n);
  for (const v of order.filter((x) => !x.problem)) {
    await loadWithCpu(v, n === 1 ? 3 * WARMUP : WARMUP);
    const observed = observedOver(v);
    const summary = await loadWithCpu(v, SECONDS);
    v.allocated.push((await observed()) / summary.total);
    v.runs.push(summary);
    v.rss = c.rssBytes(v.server?.process.pid ?? -1);
    log(
      `round ${n}/${ROUNDS} ${v.label}: ${fixed((summary.serverCpu ?? NaN) * 1e6, 0)} µs a request`,
    );
  }
}

/** The server's CPU time per request, median over the rounds. */
const usPerRequest = (v: Variant) =>
  v.problem ? NaN : median(v.runs.map((s) => (s.serverCpu ?? NaN) * 1e6));

/** The table: each variant's req/s, p99, server µs per request, and what its addition costs. */
function table(): string {
  const bare = median(VARIANTS.at(-1)!.runs.map((s) => s.requestsPerSecond));
  const lines = VARIANTS.map((v) => {
    const rps = median(v.runs.map((s) => s.requestsPerSecond));
    const p99 = median(v.runs.map((s) => s.p99Ms));
    const rounds = v.runs.map((r) => fixed((r.serverCpu ?? NaN) * 1e6, 0)).join(' · ');
    const cost = v === VARIANTS[0] ? '' : fixed(usPerRequest(VARIANTS[0]) - usPerRequest(v), 1);
    const kib = (bytes: number) => fixed(bytes / 1024, 1);
    const allocated = kib(median(v.allocated));
    const allocates =
      v === VARIANTS[0] ? '' : kib(median(VARIANTS[0].allocated) - median(v.allocated));
    const cells = [
      v.label,
      Math.round(rps),
      times(rps / bare),
      fixed(p99, 1),
      fixed(usPerRequest(v), 1),
      cost,
      allocated,
      allocates,
      v.rss === undefined ? '–' : fixed(v.rss / 2 ** 20, 0),
    ];
    return `| ${[...cells, v.problem ?? rounds].join(' | ')} |`;
  });
  return [
    `${machine()}; wrk -c${CONNECTIONS}, ${ROUNDS} rounds × ${SECONDS} s`,
    '',
    '| variant | req/s | × the bare route | p99 ms | CPU µs/request | less than the whole service (µs/request) | KiB allocated/request | less than the whole service (KiB) | RSS after, MiB | each round (µs/request) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...lines,
  ].join('\n');
}

c.runMain(async () => {
  if (!WRK) throw new Error('The ablation loads with wrk: apt-get install wrk');
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
