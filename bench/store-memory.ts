import type { Request } from 'express';
import { dist } from './project';

/**
 * Bytes per tracked client in the service's in-memory store, measured in this process
 * (`node --expose-gc store-memory.js <ipv4|ipv6> <clients>`): the heap after N clients' first hit
 * of the day, minus the heap before, over N. Keys are made by the service's own clientKey(), so
 * they are the strings the store really holds: an IPv4 address as the socket gives it, an IPv6
 * client as its /64.
 */
const [kind, clientsArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || (kind !== 'ipv4' && kind !== 'ipv6') || !(clients > 0)) {
  throw new Error('usage: node --expose-gc store-memory.js <ipv4|ipv6> <clients>');
}

const { clientKey } = dist.clientKey();
const { MemoryDailyLimitStorage } = dist.memoryStorage();
const { SystemClock } = dist.clock();

const hex = (n: number) => n.toString(16);

/** The i-th client's socket address: a flat string, as node's socket.remoteAddress is. */
function address(i: number): string {
  const text =
    kind === 'ipv4'
      ? `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`
      : `2a02:6b8:${hex(i >>> 16)}:${hex(i & 0xffff)}:${hex(i % 9973)}:1f:2e:3d`;
  return Buffer.from(text, 'latin1').toString('latin1');
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const before = heapUsed();
const storage = new MemoryDailyLimitStorage(new SystemClock());
for (let i = 0; i < clients; i++) {
  storage.hit(clientKey({ ip: address(i) } as Request), 100);
}
const after = heapUsed();
if (storage.trackedClients !== clients) {
  throw new Error(`the store tracks ${storage.trackedClients} clients, expected ${clients}`);
}
const example = clientKey({ ip: address(clients - 1) } as Request);
process.stdout.write(
  `${JSON.stringify({ kind, clients, example, bytesPerClient: (after - before) / clients })}\n`,
);
