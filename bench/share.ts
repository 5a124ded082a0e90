import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADDITIONS } from './assemble';
import * as c from './common';
import { fixed, machine, median } from './report';
import { runWrk, WRK } from './wrk';

/**
 * `npm run bench:share` (bench/README.md, "One core shared"): two servers on the server core at
 * once, each loaded by its own wrk on the load core for the same seconds. Both stay busy (each
 * gets about half the core's CPU time), so the ratio of their req/s is the ratio of what a request
 * costs each, and the host's slow spells, which slow both alike, drop out of it. Pairs: the
 * service against the bare Nest route, against itself (the method's own spread) and, with
 * `--additions`, the bench's variants (bench/assemble.ts) each against the whole.
 */
const ROUNDS = c.envNumber('BENCH_ROUNDS', 6);
const SECONDS = c.envNumber('BENCH_DURATION', 5);
const WARMUP = c.envNumber('BENCH_WARMUP', 3);
const CONNECTIONS = c.envNumber('BENCH_CONNECTIONS', 25);
const ENV = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: '1000000000' };

interface Pair {
  label: string;
  /** Node's arguments of each side: the side measured, then the side it is held against. */
  sides: [string[], string[]];
  ratios: number[];
  /** Each side's share of the core's CPU time over the rounds, to show that neither idled. */
  shares: number[];
}

const variant = (...without: string[]) => [c.benchJs('variant'), ...without];
const pair = (label: string, measured: string[], base: string[]): Pair => ({
  label,
  sides: [measured, base],
  ratios: [],
  shares: [],
});
const PAIRS: Pair[] = process.argv.includes('--additions')
  ? ADDITIONS.map((name) => pair(`the service without ${name}`, variant(name), variant()))
  : [
      pair('the service, against the bare Nest route', c.SERVICE_ARGS, [c.benchJs('bare-nest')]),
      pair('the service, against itself', c.SERVICE_ARGS, c.SERVICE_ARGS),
    ];
const log = c.runLog('share');

const load = (server: c.Server, seconds: number) =>
  runWrk({
    url: `http://127.0.0.1:${server.port}${c.ROUTE}`,
    body: JSON.stringify(c.README_BODY),
    connections: CONNECTIONS,
    seconds,
  });

/** Both sides at once: their req/s and CPU seconds over the same window. */
async function together(servers: c.Server[], seconds: number) {
  const cpu = servers.map((s) => c.cpuSeconds(s.process.pid));
  const runs = await Promise.all(servers.map((server) => load(server, seconds)));
  const used = servers.map((s, i) => c.cpuSeconds(s.process.pid) - cpu[i]);
  return { rps: runs.map((run) => run.requestsPerSecond), used };
}

/** Fresh processes of both sides, warmed together, then ROUNDS windows. */
async function measure(p: Pair): Promise<void> {
  const servers: c.Server[] = [];
  try {
    for (const [i, args] of p.sides.entries())
      servers.push(await c.startServer(`share-${i}`, [process.execPath, ...args], ENV));
    await together(servers, WARMUP);
    for (let n = 1; n <= ROUNDS; n++) {
      const { rps, used } = await together(servers, SECONDS);
      p.ratios.push(rps[0] / rps[1]);
      p.shares.push(...used.map((seconds) => seconds / SECONDS));
      log(`${p.label}, round ${n}: ${rps.map((r) => Math.round(r)).join(' and ')} req/s`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.process.stop(5_000)));
  }
}

function report(): string {
  const rows = PAIRS.map((p) => {
    const shares = `${fixed(Math.min(...p.shares) * 100, 0)} to ${fixed(Math.max(...p.shares) * 100, 0)} %`;
    const ratios = p.ratios.map((r) => fixed(r, 3)).join(' · ');
    return `| ${p.label} | ${ratios} | ${fixed(median(p.ratios), 3)}× | ${shares} |`;
  });
  return `# One core shared: req/s of the first side over the second's, both loaded at once

${machine()}; servers on core ${c.SERVER_CPU}, wrk (\`-t1\`, ${CONNECTIONS} connections each) on core ${c.LOAD_CPU}; the README body; fresh processes a pair, ${WARMUP} s together unrecorded, then ${ROUNDS} rounds of ${SECONDS} s.

| pair | each round | median | each side's share of the core |
|---|---|--:|--:|
${rows.join('\n')}
`;
}

c.runMain(async () => {
  if (!c.CAN_PIN || !WRK) throw new Error('bench:share needs taskset, two cores and wrk on PATH');
  for (const p of PAIRS) await measure(p);
  const text = report();
  mkdirSync(c.OUT_DIR, { recursive: true });
  writeFileSync(join(c.OUT_DIR, 'share.md'), text);
  console.log(`\n${text}\n(written to bench/.out/share.md)`);
});
