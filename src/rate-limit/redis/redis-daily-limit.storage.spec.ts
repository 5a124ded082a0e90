import type { LoggerService } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import Redis, { Cluster } from 'ioredis';
import { SettableClock } from '../../testing/settable-clock';
import { MemoryDailyLimitStorage } from '../memory-daily-limit.storage';
import { RedisDailyLimitStorage } from './redis-daily-limit.storage';
import { RedisConnection } from './redis.connection';

const KEY = 'depreciation:daily:2026-11-21:203.0.113.7';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A client that answers the store's checks as a healthy Redis, and `dailyCount` as told. */
class FakeRedis extends EventEmitter {
  status = 'connecting';
  readonly options = { commandTimeout: 200, db: 0, host: '10.0.0.1', port: 7000 };
  readonly slots = Array.from({ length: 16_384 }, () => ['10.0.0.1:7000']);
  readonly dailyCount = jest.fn<Promise<unknown>, unknown[]>();
  call(command: string): Promise<unknown> {
    if (command === 'CONFIG') return Promise.resolve(['maxmemory-policy', 'noeviction']);
    if (command === 'EVAL') return Promise.resolve(0);
    return Promise.reject(Object.assign(new Error('NOSCRIPT'), { name: 'ReplyError' }));
  }
  info = () => Promise.resolve(`run_id:${'a'.repeat(40)}\r\n`);
  nodes = () => [this];
  quit = () => Promise.resolve('OK');
  disconnect = () => undefined;
}

/** A store on `client`, started once the client is ready (so it counts in Redis). */
async function started(topology: 'standalone' | 'cluster', maxClients = 1_000) {
  const client = new FakeRedis();
  const endpoint =
    topology === 'cluster'
      ? { topology, client: client as unknown as Cluster }
      : { topology, client: client as unknown as Redis };
  const lines: string[] = [];
  const logger: LoggerService = {
    log: (line: string) => lines.push(`log: ${line}`),
    warn: (line: string) => lines.push(`warn: ${line}`),
    error: (line: string) => lines.push(`error: ${line}`),
  };
  const clock = new SettableClock('2026-11-21T23:59:00.000Z');
  const memory = new MemoryDailyLimitStorage(clock, maxClients, logger);
  const store = new RedisDailyLimitStorage(
    new RedisConnection(endpoint, 'fake'),
    memory,
    clock,
    logger,
  );
  const init = store.onModuleInit();
  client.status = 'ready';
  client.emit('ready');
  await init;
  return { client, store, lines, clock };
}

describe('RedisDailyLimitStorage', () => {
  let stores: RedisDailyLimitStorage[] = [];
  const start = async (topology: 'standalone' | 'cluster', maxClients?: number) => {
    const ready = await started(topology, maxClients);
    stores.push(ready.store);
    return ready;
  };
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.onApplicationShutdown()));
    stores = [];
  });

  it("adds a hit to the client's key with its field, floor and expiry, and answers the total", async () => {
    const { client, store } = await start('standalone');
    client.dailyCount.mockResolvedValueOnce([7, 1, 0]).mockResolvedValueOnce([8, 2, 0]);
    expect(await store.hit('203.0.113.7', 10)).toEqual({
      totalHits: 7,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect((await store.hit('203.0.113.7', 10)).totalHits).toBe(8);
    // The second sends the floor a replaced key would start from: the last total seen, 7.
    expect(client.dailyCount.mock.calls).toEqual([
      [KEY, store.instance, 1, 120, 0, 0, 'add'],
      [KEY, store.instance, 1, 120, 7, 1, 'add'],
    ]);
  });

  it('counts every client alone once a command fails on one server, and says so once', async () => {
    const { client, store, lines } = await start('standalone');
    client.dailyCount.mockResolvedValueOnce([4, 1, 0]).mockRejectedValue(new Error('timed out'));
    await store.hit('203.0.113.7', 10);
    expect((await store.hit('203.0.113.7', 10)).totalHits).toBe(5);
    expect((await store.hit('203.0.113.8', 10)).totalHits).toBe(1);
    expect(client.dailyCount).toHaveBeenCalledTimes(2);
    expect(store.state()).toEqual({
      store: 'redis',
      topology: 'standalone',
      counting: 'memory',
      shared: false,
      since: expect.stringMatching(ISO),
    });
    expect(lines.slice(1)).toEqual([
      "warn: Redis at fake unavailable (timed out): counting in this instance's memory until it is back",
    ]);
  });

  it("takes a failure in a Cluster that is up for one slot's: the others stay in Redis", async () => {
    const { client, store, lines } = await start('cluster');
    client.dailyCount.mockRejectedValueOnce(new Error('timed out')).mockResolvedValue([1, 1, 0]);
    expect((await store.hit('203.0.113.7', 10)).totalHits).toBe(1);
    expect((await store.hit('203.0.113.8', 10)).totalHits).toBe(1);
    expect(client.dailyCount).toHaveBeenCalledTimes(2);
    expect(store.state()).toMatchObject({ topology: 'cluster', counting: 'redis', shared: false });
    expect(lines.slice(1)).toEqual([
      "warn: Redis at fake unavailable for some clients (timed out): counting them in this instance's memory until their slots answer",
    ]);
  });

  it('counts a client alone on a reply that is not a count, and stays shared', async () => {
    const { client, store, lines } = await start('standalone');
    client.dailyCount.mockResolvedValue('OK');
    expect((await store.hit('203.0.113.7', 10)).totalHits).toBe(1);
    expect(store.state()).toMatchObject({ counting: 'redis', shared: true });
    expect(lines).toEqual([
      'log: Daily counters shared in Redis at fake',
      `warn: Redis at fake answered ${KEY} with something else than counts ("OK"): counted in this instance's memory`,
    ]);
  });

  it("keeps the latest day's key when the clock steps back across midnight", async () => {
    const { client, store, clock } = await start('standalone');
    client.dailyCount.mockResolvedValue([1, 1, 0]);
    clock.set('2026-11-22T00:00:01.000Z');
    await store.hit('203.0.113.7', 10);
    clock.set('2026-11-21T23:59:57.000Z');
    await store.hit('203.0.113.7', 10);
    const keys = client.dailyCount.mock.calls.map(([key]) => key);
    // The 21st's key has expired by then: counting there would be a fresh budget.
    expect(keys).toEqual([
      'depreciation:daily:2026-11-22:203.0.113.7',
      'depreciation:daily:2026-11-22:203.0.113.7',
    ]);
  });

  it('goes on from the shared count for a client past the table when Redis fails', async () => {
    const { client, store } = await start('standalone', 1);
    client.dailyCount.mockResolvedValueOnce([1, 1, 0]).mockResolvedValueOnce([9, 1, 0]);
    await store.hit('198.51.100.1', 10);
    // Past the table of 1: answered by the shared count, and the sketch raised to it.
    expect((await store.hit('203.0.113.7', 10)).totalHits).toBe(9);
    client.dailyCount.mockRejectedValue(new Error('timed out'));
    expect(await store.hit('203.0.113.7', 10)).toMatchObject({ totalHits: 10, isBlocked: false });
    expect(await store.hit('203.0.113.7', 10)).toMatchObject({ totalHits: 11, isBlocked: true });
  });
});
