import { DEFAULTS } from '../src/config/environment';
import { createRedisClient } from '../src/rate-limit/redis/redis-clients';
import { utcDayNumber } from '../src/rate-limit/daily-limit.storage';
import { dayKey } from '../src/rate-limit/redis/redis-daily-count-script';
import { RedisDailyLimitStorage } from '../src/rate-limit/redis/redis-daily-limit.storage';
import { waitFor } from '../src/testing/processes';
import { useRedisStore } from '../src/testing/redis-store';
import { describeWithTools } from '../src/testing/system-tools';

/** The Redis store against a real redis-server (its unit spec, with a fake client, is in src/). */

describeWithTools(['redis-server'], 'RedisDailyLimitStorage on a real redis-server', () => {
  const redis = useRedisStore('2026-11-21T23:59:00.000Z');
  let storage: RedisDailyLimitStorage;

  beforeEach(async () => {
    storage = await redis.start();
  });

  it('counts in Redis, with the seconds to midnight UTC, and blocks past the limit', async () => {
    const records = [];
    for (let i = 0; i < 3; i++) records.push(await storage.hit('198.51.100.1', 2));
    expect(records).toEqual([
      { totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 },
      { totalHits: 2, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 },
      { totalHits: 3, timeToExpire: 60, isBlocked: true, timeToBlockExpire: 60 },
    ]);
    const key = 'depreciation:daily:2026-11-21:198.51.100.1';
    // The day's total, and this instance's own field (what it added).
    expect(await redis.inspect.hgetall(key)).toEqual({ total: '3', [storage.instance]: '3' });
    // 60 s to midnight by the instance's redis.clock, plus 60 s of grace.
    expect(await redis.inspect.ttl(key)).toBe(120);
    expect(storage.state()).toEqual({
      store: 'redis',
      topology: 'standalone',
      counting: 'redis',
      shared: true,
      since: '2026-11-21T23:59:00.000Z',
    });
    expect(redis.logger.lines).toEqual(['log: Daily counters shared in Redis at test-redis']);
  });

  it('starts a new key on a new UTC day', async () => {
    await storage.hit('198.51.100.2', 5);
    redis.clock.set('2026-11-22T00:00:00.000Z');
    const record = await storage.hit('198.51.100.2', 5);
    expect(record).toMatchObject({ totalHits: 1, timeToExpire: 86_400 });
    expect(await redis.inspect.keys('depreciation:daily:*')).toHaveLength(2);
  });

  it('falls back to memory from the last shared count, logs once, and returns', async () => {
    for (let i = 0; i < 3; i++) await storage.hit('198.51.100.3', 5);
    await redis.server.kill();
    const during = [];
    for (let i = 0; i < 4; i++) during.push(await storage.hit('198.51.100.3', 5));
    expect(during.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [4, false],
      [5, false],
      [6, true],
      [7, true],
    ]);
    expect(storage.state()).toMatchObject({ counting: 'memory', shared: false });

    await redis.server.restart();
    await waitFor('the storage to count in Redis again', async () =>
      Promise.resolve(storage.state().shared),
    );
    // Redis restarted empty; this instance gave back the 7 hits it counted, in Redis too.
    expect(await storage.hit('198.51.100.3', 5)).toMatchObject({
      totalHits: 8,
    });
    expect(await redis.inspect.hget('depreciation:daily:2026-11-21:198.51.100.3', 'total')).toBe(
      '8',
    );
    expect(await storage.hit('198.51.100.4', 5)).toMatchObject({
      totalHits: 1,
    });
    expect(redis.logger.lines).toEqual([
      'log: Daily counters shared in Redis at test-redis',
      expect.stringMatching(
        /^warn: Redis at test-redis unavailable \(.+\): counting in this instance's memory until it is back$/,
      ),
      expect.stringMatching(
        /^warn: Redis at test-redis is another process than before \(run_id \w+\): re-adding what this instance counted today for 1 clients$/,
      ),
      'log: Daily counters shared in Redis at test-redis',
    ]);
  });

  it('refuses at once a client whose last shared count reached the limit, and leaves others to Redis', async () => {
    const key = 'depreciation:daily:2026-11-21:198.51.100.5';
    expect(storage.refuseAtOnce('198.51.100.5', 2)).toBeUndefined();
    // Another instance used the client's budget: this one learns it from its next hit.
    await redis.inspect.hset(key, 'total', '1', 'other-instance', '1');
    expect(await storage.hit('198.51.100.5', 2)).toMatchObject({ totalHits: 2, isBlocked: false });
    expect(storage.refuseAtOnce('198.51.100.5', 2)).toEqual({
      totalHits: 3,
      timeToExpire: 60,
      isBlocked: true,
      timeToBlockExpire: 60,
    });
    // Counted in this instance only: no round trip for a refusal.
    expect(await redis.inspect.hget(key, 'total')).toBe('2');
    expect(storage.refuseAtOnce('198.51.100.6', 2)).toBeUndefined();
  });

  it('closes its connection on shutdown, without logging an outage', async () => {
    const clientsBefore = Number(
      (await redis.inspect.info('clients')).match(/connected_clients:(\d+)/)?.[1],
    );
    await storage.onApplicationShutdown();
    await waitFor('the connection to close', async () => {
      const info = await redis.inspect.info('clients');
      return Number(info.match(/connected_clients:(\d+)/)?.[1]) === clientsBefore - 1;
    });
    expect(redis.logger.lines).toEqual(['log: Daily counters shared in Redis at test-redis']);
  });

  it('sends the counts of one event-loop turn in one write, each with its own reply', async () => {
    const client = createRedisClient(redis.server.url, DEFAULTS.REDIS_COMMAND_TIMEOUT_MS);
    try {
      await new Promise((ready) => client.once('ready', ready));
      // Every write on the real connection, counted on its way through.
      let writes = 0;
      const stream = client.stream;
      const write = stream.write.bind(stream);
      stream.write = ((...args: Parameters<typeof write>) => {
        writes += 1;
        return write(...args);
      }) as typeof stream.write;
      const now = Date.parse('2026-11-21T12:00:00.000Z');
      const key = dayKey('198.51.100.9', utcDayNumber(now));
      const replies = await Promise.all(
        Array.from({ length: 50 }, () => client.dailyCount(key, 'one', 1, 600, 0, 0, 'add')),
      );
      expect(writes).toBe(1);
      expect(replies.map((reply) => (reply as number[])[0]).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      expect(await redis.inspect.hget(key, 'total')).toBe('50');
    } finally {
      client.disconnect();
    }
  });
});
