import Redis from 'ioredis';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { limited } from '../src/testing/bodies';
import { nextClient } from '../src/testing/clients';
import { health, redisHealth, remaining, todayKey } from '../src/testing/daily-limit';
import { depreciate } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { ServerProcess, startServer, untilShared } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 20;
/** The client of the first test, whose key the third reads. */
const SHARED = nextClient();
describeWithTools(['redis-server'], 'Daily counters shared in Redis by two built instances', () => {
  let redis: RedisServer;
  const servers: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;

  const startInstance = async () => {
    const env = { RATE_LIMIT_STORE: 'redis', REDIS_URL: redis.url, RATE_LIMIT_PER_DAY: `${LIMIT}` };
    const server = await startServer(env);
    servers.push(server);
    return untilShared(server);
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await Promise.all([startInstance(), startInstance()]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await redis?.stop();
  }, PROCESS_TEST_TIMEOUT_MS);

  it('shares one budget between requests alternating between the instances', async () => {
    const seen: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const answer = await depreciate((i % 2 ? b : a).port, { from: SHARED });
      expect(answer.status).toBe(200);
      seen.push(remaining(answer));
    }
    expect(seen).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    for (const server of [a, b]) {
      const refused = await depreciate(server.port, { from: SHARED });
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual(limited(LIMIT));
    }
  });

  it('lets exactly the limit through a concurrent burst of three times the limit at both', async () => {
    const client = nextClient();
    const burst = Array.from({ length: 3 * LIMIT }, (_, i) =>
      depreciate((i % 2 ? b : a).port, { from: client }),
    );
    const statuses = (await Promise.all(burst)).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2 * LIMIT);
  });

  it('keys a client by its UTC date (its total in a hash) and lets the key expire after the next midnight UTC', async () => {
    const client = new Redis(redis.url);
    try {
      const key = todayKey(SHARED);
      const [count, ttlMs] = await Promise.all([client.hget(key, 'total'), client.pttl(key)]);
      const expiresAt = Date.now() + ttlMs;
      const nextMidnight = Math.ceil(Date.now() / 86_400_000) * 86_400_000;
      expect(Number(count)).toBe(LIMIT + 2);
      // 60 s of grace past midnight; the instance rounds its seconds to midnight up (< 1 s more).
      expect(expiresAt).toBeGreaterThanOrEqual(nextMidnight + 60_000 - 50);
      expect(expiresAt).toBeLessThan(nextMidnight + 61_000 + 50);
    } finally {
      client.disconnect();
    }
  });

  it(
    "keeps a client's count when an instance restarts",
    async () => {
      const client = nextClient();
      for (let i = 0; i < 5; i++) await depreciate(a.port, { from: client });
      await a.stop();
      a = await startInstance();
      const answer = await depreciate(a.port, { from: client });
      expect(answer.status).toBe(200);
      expect(remaining(answer)).toBe(LIMIT - 6);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('reports shared counting in GET /health, which is not counted', async () => {
    const client = nextClient();
    const before = remaining(await depreciate(b.port, { from: client }));
    expect(await health(b.port)).toEqual(redisHealth(true));
    expect(remaining(await depreciate(a.port, { from: client }))).toBe(before - 1);
  });
});
