import type { LoggerService } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import Redis, { Cluster } from 'ioredis';
import { DEFAULTS } from '../../config/environment';
import { waitFor } from '../../testing/processes';
import { SettableClock } from '../../testing/settable-clock';
import { MemoryDailyLimitStorage } from '../memory-daily-limit.storage';
import { RedisDailyLimitStorage } from './redis-daily-limit.storage';
import { RedisConnection } from './redis-connection';

const KEY = 'depreciation:daily:2026-11-21:203.0.113.7';
/** The same client's key of the next day. */
const KEY_22 = 'depreciation:daily:2026-11-22:203.0.113.7';
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
  /** INFO server's run_id: a test changes it to say Redis came back as another process. */
  runId = 'a'.repeat(40);
  info = () => Promise.resolve(`run_id:${this.runId}\r\n`);
  /** TIME unanswered: no clock offset is measured. */
  time = () => Promise.reject(new Error('TIME unanswered'));
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
  const memory = new MemoryDailyLimitStorage(clock, maxClients, undefined, logger);
  const store = new RedisDailyLimitStorage(
    new RedisConnection(endpoint, 'fake'),
    memory.fallback,
    clock,
    logger,
    { allowEviction: false, clockOffsetWarnMs: DEFAULTS.REDIS_CLOCK_OFFSET_WARN_MS },
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

  it('counts every client alone once a command fails in a Cluster that is down', async () => {
    const { client, store, lines } = await start('cluster');
    client.dailyCount.mockRejectedValue(new Error('Connection is closed.'));
    client.status = 'close';
    expect((await store.hit('203.0.113.7', 10)).totalHits).toBe(1);
    expect(store.state()).toMatchObject({ topology: 'cluster', counting: 'memory' });
    expect(lines.slice(1)).toEqual([
      "warn: Redis at fake unavailable (Connection is closed.): counting in this instance's memory until it is back",
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

  describe('with the clock behind the day counted in (it stepped back across midnight)', () => {
    /** A store whose client `203.0.113.7` has 2 hits on the 22nd, its clock now at 23:58 on the 21st. */
    const behind = async () => {
      const ready = await start('standalone');
      ready.client.dailyCount.mockResolvedValueOnce([1, 1, 0]).mockResolvedValueOnce([2, 2, 0]);
      ready.clock.set('2026-11-22T00:00:30.000Z');
      await ready.store.hit('203.0.113.7', 100);
      await ready.store.hit('203.0.113.7', 100);
      ready.clock.set('2026-11-21T23:58:00.000Z');
      return ready;
    };

    it("counts in the latest day's key, with seconds to its end by this clock", async () => {
      const { client, store } = await behind();
      client.dailyCount.mockResolvedValueOnce([3, 3, 0]);
      // The memory store alone answers 86,520 here too (docs/contract.md, "Daily limit").
      expect(await store.hit('203.0.113.7', 100)).toEqual({
        totalHits: 3,
        timeToExpire: 86_520,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      expect(client.dailyCount.mock.calls.at(-1)).toEqual([
        KEY_22,
        store.instance,
        1,
        86_580,
        2,
        2,
        'add',
      ]);
    });

    it('re-adds to that day when Redis comes back empty, and records the new process only once it has', async () => {
      const { client, store, lines } = await behind();
      client.status = 'end';
      client.emit('close');
      expect(await store.hit('203.0.113.7', 100)).toMatchObject({
        totalHits: 3,
        timeToExpire: 86_520,
      });
      // Back as another process (empty): the first re-add fails, the probe tries again.
      client.runId = 'b'.repeat(40);
      client.dailyCount
        .mockRejectedValueOnce(new Error('LOADING'))
        .mockResolvedValueOnce([3, 3, 0])
        .mockResolvedValueOnce([4, 4, 0]);
      client.status = 'ready';
      client.emit('ready');
      await waitFor('the store to share again', () => Promise.resolve(store.state().shared));
      const readd = [KEY_22, store.instance, 0, 86_580, 3, 3, 'max'];
      expect(client.dailyCount.mock.calls.slice(2)).toEqual([readd, readd]);
      expect(await store.hit('203.0.113.7', 100)).toMatchObject({ totalHits: 4 });
      expect(lines.filter((line) => line.includes('another process'))).toEqual([
        `warn: Redis at fake is another process than before (run_id ${'b'.repeat(40)}): re-adding what this instance counted today for 1 clients`,
      ]);
    });

    it('lets a client refused at once ask Redis again every few seconds', async () => {
      const { store, clock } = await behind();
      expect(store.refuseAtOnce('203.0.113.7', 2)).toMatchObject({
        totalHits: 3,
        isBlocked: true,
        timeToExpire: 86_520,
      });
      clock.set('2026-11-21T23:58:05.000Z');
      expect(store.refuseAtOnce('203.0.113.7', 2)).toBeUndefined();
    });
  });

  it("answers a reply that comes back after its day as it is, leaving the next day's counts", async () => {
    const { client, store, clock } = await start('standalone');
    let answerLate: (reply: unknown) => void = () => undefined;
    const lateReply = new Promise((resolve) => (answerLate = resolve));
    client.dailyCount
      .mockReturnValueOnce(lateReply)
      .mockResolvedValueOnce([1, 1, 0])
      .mockResolvedValueOnce([2, 2, 0]);
    clock.set('2026-11-21T23:59:59.900Z');
    const late = store.hit('203.0.113.7', 3);
    clock.set('2026-11-22T00:00:01.000Z');
    expect((await store.hit('203.0.113.7', 3)).totalHits).toBe(1);
    answerLate([7, 7, 0]);
    expect(await late).toEqual({
      totalHits: 7,
      timeToExpire: 1,
      isBlocked: true,
      timeToBlockExpire: 1,
    });
    // The 22nd's count was not raised to the 21st's.
    expect((await store.hit('203.0.113.7', 3)).totalHits).toBe(2);
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
