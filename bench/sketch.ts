import { CountMinSketch } from '../src/rate-limit/count-min-sketch';
import { envNumber } from './common';

/**
 * What the count-min sketch for clients past MAX_TRACKED_CLIENTS costs an honest client: attacker
 * keys each spend their whole limit, one hit at a time, then honest new clients each spend theirs,
 * and the share of honest clients refused before their limit is printed with the sketch's memory.
 * `npm run bench:sketch`; BENCH_ATTACKERS (10,000,000), BENCH_SKETCH_MB (128), BENCH_ROWS (8),
 * BENCH_LIMIT (3: the odds do not depend on it while cells are bytes, below 255), BENCH_HONEST
 * (100,000).
 */
const hex = (n: number) => n.toString(16);
/** Distinct IPv6 /64 keys, as clientKey() spells them: attackers in one /32, honest ones in another. */
const key = (net: string, i: number) => `${net}:${hex(i >>> 16)}:${hex(i & 0xffff)}::/64`;

/** Honest clients refused before their limit: at their first request, and at any of them. */
function honest(sketch: CountMinSketch, clients: number, limit: number) {
  let first = 0;
  let early = 0;
  for (let i = 0; i < clients; i++) {
    const client = key('2001:db8', i);
    for (let hit = 1; hit <= limit; hit++) {
      if (sketch.hit(client, limit) <= limit) continue;
      if (hit === 1) first += 1;
      early += 1;
      break;
    }
  }
  return { first: first / clients, early: early / clients };
}

function main(): void {
  const attackers = envNumber('BENCH_ATTACKERS', 10_000_000);
  const megabytes = envNumber('BENCH_SKETCH_MB', 128);
  const rows = envNumber('BENCH_ROWS', 8);
  const limit = envNumber('BENCH_LIMIT', 3);
  const clients = envNumber('BENCH_HONEST', 100_000);
  const before = process.memoryUsage().arrayBuffers;
  const sketch = new CountMinSketch(megabytes * 2 ** 20, rows, limit);
  const bytes = process.memoryUsage().arrayBuffers - before;
  const started = Date.now();
  for (let i = 0; i < attackers; i++) {
    const attacker = key('2a02:6b8', i);
    for (let hit = 0; hit < limit; hit++) sketch.hit(attacker, limit);
  }
  const seconds = (Date.now() - started) / 1000;
  const odds = honest(sketch, clients, limit);
  const pct = (share: number) => `${(share * 100).toPrecision(2)} %`;
  console.log(
    `${attackers} attacker keys x ${limit} hits (${seconds.toFixed(1)} s), sketch ${megabytes} MB ` +
      `(${(bytes / 2 ** 20).toFixed(1)} MB allocated), ${rows} rows: saturation ` +
      `${pct(sketch.saturation)}; of ${clients} honest new clients, refused at the first request ` +
      `${pct(odds.first)}, before the limit ${pct(odds.early)}`,
  );
}

main();
