import { freePort, RunningProcess, waitFor } from '../src/testing/processes';
import * as c from './common';
import { runLoad } from './load';
import { fixed } from './report';
import { runWrk, WRK } from './wrk';

/**
 * The tail's evidence (bench/ablation.ts): each target run with `--trace-gc` and bench/observe.js
 * preloaded, under full load for BENCH_TAIL_SECONDS. From --trace-gc's lines during the load: the
 * collections, their pauses, and the bytes allocated per request (what each scavenge found, less
 * what the previous one left); from observe.js, the event loop's delay over the same window.
 */
const SECONDS = c.envNumber('BENCH_TAIL_SECONDS', 10);
/** `[pid:0x…]  1234 ms: Scavenge 10.5 (12.0) -> 9.8 (13.0) MB, pooled: 0 MB, 1.23 / 0.00 ms …` */
const GC_LINE =
  /ms: ([A-Za-z -]+?) ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, .*?([\d.]+) \/ [\d.]+ ms/;

interface Target {
  label: string;
  command: string[];
}

interface Collections {
  scavenges: number;
  others: number;
  pauseMs: number;
  allocatedMb: number;
}

function collections(trace: string): Collections {
  const figures: Collections = { scavenges: 0, others: 0, pauseMs: 0, allocatedMb: 0 };
  let left: number | undefined;
  for (const line of trace.split('\n')) {
    const match = GC_LINE.exec(line);
    if (!match) continue;
    const [kind, before, after, pause] = [match[1], ...match.slice(2).map(Number)];
    if (kind.startsWith('Scavenge')) figures.scavenges++;
    else figures.others++;
    figures.pauseMs += pause;
    if (left !== undefined) figures.allocatedMb += Math.max(0, before - left);
    left = after;
  }
  return figures;
}

async function observe({ label, command }: Target, env: object) {
  const port = await freePort();
  const [node, ...args] = command;
  const flags = ['--trace-gc', '--require', c.benchJs('observe')];
  const [program, ...rest] = c.pinned(c.SERVER_CPU, [node, ...flags, ...args]);
  const env_ = { ...process.env, ...env, PORT: `${port}` };
  const child = RunningProcess.start(program, rest, { name: label, env: env_ });
  await child.untilListening(port, '127.0.0.1', 30_000);
  const url = `http://127.0.0.1:${port}${c.ROUTE}`;
  const load = (seconds: number) =>
    (WRK ? runWrk : runLoad)({
      url,
      body: JSON.stringify(c.README_BODY),
      connections: 50,
      seconds,
    });
  await load(3);
  child.signal('SIGUSR2');
  const from = child.stdout.length;
  const summary = await load(SECONDS);
  child.signal('SIGUSR2');
  const observed = () => Promise.resolve(child.stderr.includes('observe '));
  await waitFor('the event loop delay', observed, 5_000);
  const trace = child.stdout.slice(from);
  const delay = JSON.parse(/observe (.*)/.exec(child.stderr)![1]) as Record<string, number>;
  await child.stop(5_000);
  return { label, summary, gc: collections(trace), delay };
}

/** The tail's table for `targets` (the service, then the bare Nest route). */
export async function tailOf(targets: Target[], env: object, log: (line: string) => void) {
  const rows: string[] = [];
  for (const target of targets) {
    log(`tail: ${target.label} with --trace-gc, ${SECONDS} s`);
    const { summary, gc, delay } = await observe(target, env);
    const perRequest = (gc.allocatedMb * 2 ** 20) / summary.total;
    const cells = [
      target.label,
      Math.round(summary.requestsPerSecond),
      fixed(summary.p99Ms, 1),
      `${gc.scavenges} + ${gc.others}`,
      fixed(gc.pauseMs / SECONDS, 1),
      fixed(perRequest / 1024, 1),
      `${fixed(delay.p50Ms, 1)} / ${fixed(delay.p99Ms, 1)} / ${fixed(delay.maxMs, 1)}`,
    ];
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return [
    `Each under full load for ${SECONDS} s, with --trace-gc and the event loop's delay histogram.`,
    '',
    '| target | req/s | p99 ms | scavenges + other GCs | GC pause ms/s | KiB allocated/request | loop delay p50 / p99 / max ms |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...rows,
  ].join('\n');
}
