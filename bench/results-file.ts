import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateGoals, goalsTable } from './goals';
import type { StoreMemory } from './memory';
import type { SoakResult } from './soak';
import { ROOT } from './project';
import { CAN_PIN, LOAD_CPU, SERVER_CPU } from './processes';
import { COMPARE_NODE } from './targets';
import {
  loadAverage,
  machine,
  RowResult,
  soakLine,
  storeMemoryTable,
  throughputTable,
} from './report';

export interface RunReport {
  settings: {
    seconds: number;
    rounds: number;
    warmup: number;
    connections: number;
    soakSeconds: number;
  };
  results: RowResult[];
  store: StoreMemory[];
  soak: SoakResult | undefined;
  loadAtStart: string;
  /** How long the whole run took. */
  seconds: number;
}

const NOTES = `## How to read it

- **Ceilings**: a bare Express 5 app (the Express Nest runs on, X-Powered-By and ETag off as in the
  service) and a bare \`node:http\` server, each calling the project's own compiled
  \`DepreciationService\` (system clock) after a hand-written validation of the same rules
  (\`bench/ceiling-validator.ts\`, the service's own precheck), with the contract's 400/404/413/415 bodies. They do not count
  requests or send rate-limit headers: the service's limiter has to fit in the margin.
- **Peer**: a plain Nest app on Express with the global \`ValidationPipe\` (whitelist,
  forbidNonWhitelisted) and \`@nestjs/throttler\`'s stock in-memory storage (\`ThrottlerGuard\` as
  \`APP_GUARD\`, ttl one day, limit 10⁹), same route, same DTO, same service. The stock storage
  keeps one timestamp per hit per client and copies that array on every hit, so its cost grows
  with one client's hits of the day: the peer is restarted (and warmed up) before each round.
  \`BENCH_PEER_BARE=0\` leaves out the same app without the throttler, the row that shows what Nest alone and the throttler cost.
- Every row is first checked with one request (status, Content-Type, and the whole body against
  \`DepreciationService\`, or the contract's 429 body); during the load every answer must have the
  row's status, with no connection error or timeout, or the row is reported as not measured.
  The Redis row must show at least one Redis command per request (from \`INFO stats\`), or it is
  reported as having fallen back to memory.
- The 429 row is compared with the ceilings' 200 path (refusing must cost almost nothing
  beyond HTTP). The largest-answer rows are compared with the ceilings under the same body.
- Latency is recorded by the load generator for every answer, in 10 µs buckets; p50/p99 are the
  medians over the rounds. RSS is VmRSS of the server process after its last round.
- Server CPU is the server process's CPU time over the round's wall time (median over rounds). A
  saturated server shows ~100 %; less means it was not the bottleneck (the load generator was, or
  other processes took its core), and its req/s is then a lower bound.
- The store's bytes per client are measured while the soak runs (they need only heap figures of
  their own processes), which keeps the whole run under ten minutes.
- Other work on the machine (the load average above) makes figures noisy; compare ratios from one
  run rather than absolute figures across runs.`;

function header(report: RunReport): string {
  const { settings: s } = report;
  const pinning = CAN_PIN
    ? `servers and redis-server on core ${SERVER_CPU}, autocannon on core ${LOAD_CPU} (taskset)`
    : 'none (taskset unavailable or a single core)';
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString()} in ${report.seconds.toFixed(0)} s;`,
    're-run it to refresh this file (see `bench/`), do not edit it by hand.',
    '',
    `- Machine: ${machine()}.`,
    `- Pinning: ${pinning}.`,
    `- Load: autocannon, ${s.connections} keep-alive connections, \`POST /api/depreciate\`; a ${s.warmup} s warm-up per row, then ${s.rounds} rounds × ${s.seconds} s, the rows alternating within each round; req/s is the median over the rounds.`,
    '- Bodies: the README example (2020 sedan, 7 entries) and the largest answer (`purchaseYear` 1900, 127 entries).',
    `- Runtime: every target and the load generator run on the pinned Node ${process.version} (the \`node\` package in the lock file)${COMPARE_NODE ? `; the comparison row runs the same build on ${COMPARE_NODE} (BENCH_COMPARE_NODE)` : ''}.`,
    `- Service: \`node dist/main.js\`, NODE_ENV=production, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}, stdout to /dev/null (not a TTY), stderr to \`bench/.out/\`; RATE_LIMIT_PER_DAY=10⁹ (counts, never refuses), 1 for the 429 row.`,
    `- Load average (1 / 5 / 15 min) at the start: ${report.loadAtStart}; at the end: ${loadAverage()}.`,
  ].join('\n');
}

/** The whole report as Markdown: printed, and written to bench/RESULTS.md. */
export function writeResults(report: RunReport): string {
  const goals = evaluateGoals({
    results: report.results,
    store: report.store,
    soak: report.soak?.verdict,
  });
  const markdown = [
    header(report),
    `## Throughput and latency\n\n${throughputTable(report.results)}`,
    `## Goals\n\n${goalsTable(goals)}`,
    `## Memory of the in-memory store\n\nHeap used after N clients' first hit minus before, over N (\`node --expose-gc\`, the compiled \`MemoryDailyLimitStorage\`, keys from the service's \`clientKey()\`).\n\n${storeMemoryTable(report.store)}`,
    `## Soak\n\n${soakLine(report.soak, report.settings.soakSeconds)}`,
    NOTES,
  ].join('\n\n');
  console.log(`\n${markdown}\n`);
  const path = join(ROOT, 'bench', 'RESULTS.md');
  writeFileSync(path, `${markdown}\n`);
  return path;
}
