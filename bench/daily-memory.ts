import Redis from 'ioredis';
import type { Request } from 'express';
import { dist, envNumber } from './project';
import { stopAllOnExit } from './processes';
import { HAS_REDIS, startRedis } from './redis';

/**
 * What the daily counters cost besides the per-client heap figures of `npm run bench`
 * (store-memory.ts): that the memory store gives its day back at midnight, and the bytes Redis
 * holds per client-day key written by the service's own script. `npm run bench:memory`;
 * BENCH_CLIENTS sets the count (default 200,000).
 */
const CLIENTS = envNumber('BENCH_CLIENTS', 200_000);
const { clientKey } = dist.clientKey();
const key = {
  ipv4: (i: number) =>
    clientKey({ ip: `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}` } as Request),
  ipv6: (i: number) =>
    clientKey({
      ip: `2001:db8:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`,
    } as Request),
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:memory does)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function memoryStoreOverMidnight(kind: keyof typeof key): void {
  const { MemoryDailyLimitStorage } = dist.memoryStorage();
  let now = new Date('2026-11-21T09:30:00.000Z');
  const storage = new MemoryDailyLimitStorage({ now: () => now });
  const before = heapUsed();
  for (let i = 0; i < CLIENTS; i++) storage.hit(key[kind](i), 100);
  const today = heapUsed() - before;
  now = new Date('2026-11-22T00:00:00.000Z');
  storage.hit('first client of the new day', 100);
  const after = heapUsed() - before;
  console.log(
    `memory store, ${kind}: ${(today / CLIENTS).toFixed(0)} B per client, ` +
      `${mb(today)} for ${CLIENTS} clients; after midnight ${mb(after)} held`,
  );
}

async function redisPerKey(redis: Redis, kind: keyof typeof key): Promise<void> {
  const { redisKey } = dist.redisStorage();
  await redis.flushall();
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  const before = await used();
  const now = Date.parse('2026-11-21T09:30:00.000Z');
  for (let start = 0; start < CLIENTS; start += 1_000) {
    const end = Math.min(start + 1_000, CLIENTS);
    const batch = [];
    for (let i = start; i < end; i++)
      batch.push(redis.dailyCount(redisKey(key[kind](i), now), 'instance', 1, 52_260, 0, 0, 'add'));
    await Promise.all(batch);
  }
  const perKey = ((await used()) - before) / CLIENTS;
  const sample = await redis.memory('USAGE', redisKey(key[kind](1), now));
  console.log(
    `redis, ${kind}: ${perKey.toFixed(0)} B of used_memory per client-day key ` +
      `(MEMORY USAGE of one: ${sample} B), e.g. ${redisKey(key[kind](1), now)}`,
  );
}

async function main(): Promise<void> {
  stopAllOnExit();
  console.log(`Node ${process.version}, ${CLIENTS} distinct clients`);
  memoryStoreOverMidnight('ipv4');
  memoryStoreOverMidnight('ipv6');
  if (!HAS_REDIS) return console.log('redis: not measured (apt-get install redis-server)');
  const server = await startRedis();
  // The service's script, without its 200 ms command timeout: the batches here are large.
  const { DAILY_COUNT_LUA } = dist.redisDailyCount();
  const redis = new Redis(`redis://127.0.0.1:${server.port}`, {
    scripts: { dailyCount: { lua: DAILY_COUNT_LUA, numberOfKeys: 1 } },
  });
  try {
    await redisPerKey(redis, 'ipv4');
    await redisPerKey(redis, 'ipv6');
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
