import { RedisDailyLimitStorage } from '../src/rate-limit/redis/redis-daily-limit.storage';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { untilAskedTwiceMore } from '../src/testing/redis-server';
import { useRedisStore } from '../src/testing/redis-store';
import { describeWithTools } from '../src/testing/system-tools';

/** The Redis store's faults against a real redis-server: bad values, restarts, resets, databases. */

const KEY = (client: string) => `depreciation:daily:2026-11-21:${client}`;

describeWithTools(['redis-server'], 'RedisDailyLimitStorage: faults on a real redis-server', () => {
  const redis = useRedisStore('2026-11-21T12:00:00.000Z');
  const start = (url?: string) => redis.start(url);
  const hits = async (store: RedisDailyLimitStorage, client: string, count: number, limit = 5) => {
    const records = [];
    for (let i = 0; i < count; i++) records.push(await store.hit(client, limit));
    return records.map((record) => record.totalHits);
  };
  const shared = (store: RedisDailyLimitStorage) => async () =>
    Promise.resolve(store.state().shared);
  const warnings = () => redis.logger.lines.filter((line) => line.startsWith('warn: '));

  it.each([
    ['a string', (key: string) => redis.inspect.set(key, 'abc')],
    ['a list', (key: string) => redis.inspect.del(key).then(() => redis.inspect.rpush(key, '7'))],
    ['a total that is not a count', (key: string) => redis.inspect.hset(key, 'total', '1e3')],
  ])(
    'replaces %s with the last count this instance saw, logs it once, and keeps sharing',
    async (_kind, spoil) => {
      const store = await start();
      expect(await hits(store, '198.51.100.1', 3)).toEqual([1, 2, 3]);
      await spoil(KEY('198.51.100.1'));
      // Fail open from the last count this instance saw: 3, so this hit is the 4th.
      expect(await hits(store, '198.51.100.1', 2)).toEqual([4, 5]);
      expect(await redis.inspect.hgetall(KEY('198.51.100.1'))).toEqual({
        total: '5',
        [store.instance]: '5',
      });
      expect(await redis.inspect.ttl(KEY('198.51.100.1'))).toBe(43_260);
      expect(warnings()).toEqual([
        `warn: ${KEY('198.51.100.1')} in Redis held a value that is not a daily count: replaced with 4, the last count this instance saw (fail open from there)`,
      ]);
      expect(store.state().shared).toBe(true);
      expect(await hits(store, '198.51.100.2', 2)).toEqual([1, 2]);
    },
  );

  it(
    'gives a Redis that restarted empty what each instance counted today, once',
    async () => {
      const [a, b] = [await start(), await start()];
      await hits(a, '198.51.100.3', 3);
      await hits(b, '198.51.100.3', 2);
      await redis.server.kill();
      await hits(b, '198.51.100.3', 1); // counted alone
      await redis.server.restart();
      await waitFor('both stores to share again', async () => (await shared(a)()) && shared(b)());
      expect(await redis.inspect.hgetall(KEY('198.51.100.3'))).toEqual({
        total: '6',
        [a.instance]: '3',
        [b.instance]: '3',
      });
      // A freeze is no restart: nothing is added twice.
      redis.server.pause();
      await hits(a, '198.51.100.4', 1);
      redis.server.resume();
      await waitFor('a to share again', shared(a));
      expect(await redis.inspect.hget(KEY('198.51.100.3'), 'total')).toBe('6');
      expect(await hits(a, '198.51.100.3', 1, 6)).toEqual([7]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "follows an operator's reset (DEL) within 5 s, and a restart does not undo it",
    async () => {
      const store = await start();
      expect(await hits(store, '198.51.100.5', 4, 3)).toEqual([1, 2, 3, 4]);
      expect(store.refuseAtOnce('198.51.100.5', 3)).toMatchObject({ isBlocked: true });
      await redis.inspect.del(KEY('198.51.100.5'));
      redis.clock.set('2026-11-21T12:00:04.000Z');
      expect(store.refuseAtOnce('198.51.100.5', 3)).toMatchObject({ isBlocked: true });
      redis.clock.set('2026-11-21T12:00:05.000Z');
      // Due to ask Redis again: left to the guard, whose hit finds the reset.
      expect(store.refuseAtOnce('198.51.100.5', 3)).toBeUndefined();
      expect(await hits(store, '198.51.100.5', 2, 3)).toEqual([1, 2]);
      await redis.server.kill();
      await redis.server.restart();
      await waitFor('the store to share again', shared(store));
      expect(await redis.inspect.hget(KEY('198.51.100.5'), 'total')).toBe('2');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('counts alone, never in database 0, when Redis refuses the configured database', async () => {
    const store = await start(`${redis.server.url}/99`);
    expect(store.state()).toMatchObject({ counting: 'memory', shared: false });
    expect(await hits(store, '198.51.100.6', 2)).toEqual([1, 2]);
    await untilAskedTwiceMore(redis.inspect, 'select'); // the probe asks again, refused again: still one line
    expect(await redis.inspect.dbsize()).toBe(0);
    expect(warnings()).toEqual([
      "warn: Redis at test-redis refuses database 99 (ERR DB index is out of range): counting in this instance's memory, never in another database, until it takes it",
    ]);
  });
});
