import type { Request } from 'express';
import { clientKey } from '../src/common/client-key';
import { MemoryDailyLimitStorage } from '../src/rate-limit/memory-daily-limit.storage';
import { envNumber } from './common';

/**
 * The in-memory store's heap after N clients' first hit, minus before, over N (keys from the
 * service's clientKey()): `memory.js store <ipv4|ipv6> <N>` prints it as JSON for `npm run bench`
 * (a fresh process per figure); `npm run bench:memory` prints it for BENCH_CLIENTS (200,000) with
 * what the store still holds after midnight UTC.
 */
const hex = (n: number) => n.toString(16);
/** The i-th client's key, from a flat address string as a socket gives it (IPv6: its /64). */
function key(kind: string, i: number): string {
  const ip =
    kind === 'ipv4'
      ? `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`
      : `2a02:6b8:${hex(i >>> 16)}:${hex(i & 0xffff)}:${hex(i % 9973)}:1f:2e:3d`;
  return clientKey({ ip: Buffer.from(ip, 'latin1').toString('latin1') } as Request);
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (the npm scripts do)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A store after `clients` first hits at `now()`, and the heap that took. */
function fill(kind: string, clients: number, now: () => Date) {
  const before = heapUsed();
  const storage = new MemoryDailyLimitStorage({ now });
  for (let i = 0; i < clients; i++) storage.hit(key(kind, i), 100);
  const bytes = heapUsed() - before;
  if (storage.trackedClients !== clients) throw new Error(`${storage.trackedClients} clients`);
  return { storage, bytes, before };
}

function storeFigure(kind: string, clients: number) {
  const bytesPerClient = fill(kind, clients, () => new Date()).bytes / clients;
  return { kind, clients, example: key(kind, clients - 1), bytesPerClient };
}
export type StoreMemory = ReturnType<typeof storeFigure>;

function main(): void {
  const [mode, kind, count] = process.argv.slice(2);
  if (mode === 'store') return console.log(JSON.stringify(storeFigure(kind, Number(count))));
  const clients = envNumber('BENCH_CLIENTS', 200_000);
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  console.log(`Node ${process.version}, the in-memory store with ${clients} distinct clients`);
  for (const kind of ['ipv4', 'ipv6']) {
    let now = new Date('2026-11-21T09:30:00.000Z');
    const { storage, bytes, before } = fill(kind, clients, () => now);
    now = new Date('2026-11-22T00:00:00.000Z');
    storage.hit('first client of the new day', 100);
    const [perClient, held] = [(bytes / clients).toFixed(0), mb(heapUsed() - before)];
    console.log(`${kind}: ${perClient} B per client, ${mb(bytes)} in all; after midnight ${held}`);
  }
}

main();
