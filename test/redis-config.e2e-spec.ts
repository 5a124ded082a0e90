import Redis from 'ioredis';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { health, redisHealth } from './helpers/daily-limit';
import { depreciate } from './helpers/http';
import { RedisServer, untilAskedTwiceMore } from './helpers/redis-server';
import { runToExit, ServerProcess, startServer, untilShared } from './helpers/server-process';
import { describeWithTools } from './helpers/system-tools';

describeWithTools(['redis-server'], 'REDIS_URL as the built server reads it', () => {
  let redis: RedisServer;
  let inspect: Redis;

  beforeAll(async () => {
    redis = await RedisServer.start();
    inspect = new Redis(redis.url);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    inspect?.disconnect();
    await redis?.stop();
  });

  it.each([
    [
      { REDIS_URL: 'redis://127.0.0.1:6379/abc' },
      'Invalid configuration: REDIS_URL="redis://127.0.0.1:6379/abc" must name its database with a whole number after the port, e.g. redis://127.0.0.1:6379/2',
    ],
    [
      { REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_STORE: 'memory' },
      'Invalid configuration: REDIS_URL is set but RATE_LIMIT_STORE=memory: unset REDIS_URL to count in memory, or set RATE_LIMIT_STORE=redis',
    ],
  ])(
    'stops start-up with one line and exit code 1 for %p',
    async (env, line) => {
      const { code, stderr } = await runToExit({ RATE_LIMIT_STORE: '', ...env });
      expect([code, stderr]).toEqual([1, `${line}\n`]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'counts in Redis when REDIS_URL is set without RATE_LIMIT_STORE',
    async () => {
      const server = await startServer({ RATE_LIMIT_STORE: '', REDIS_URL: redis.url });
      try {
        await untilShared(server);
        expect(await health(server.port)).toEqual(redisHealth(true));
        await depreciate(server.port, { from: '127.0.0.51' });
        expect(await inspect.keys('depreciation:daily:*:127.0.0.51')).toHaveLength(1);
      } finally {
        await server.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'counts alone, never in database 0, when Redis refuses the database, and says so once',
    async () => {
      let server: ServerProcess | undefined;
      try {
        server = await startServer({ REDIS_URL: `${redis.url}/99`, NO_COLOR: '1' });
        expect(await health(server.port)).toEqual(redisHealth(false));
        for (let i = 0; i < 3; i++)
          expect((await depreciate(server.port, { from: '127.0.0.52' })).status).toBe(200);
        await untilAskedTwiceMore(inspect, 'select'); // the probe asks again, refused again
        expect(await inspect.keys('*:127.0.0.52')).toEqual([]);
        expect(server.linesWith('refuses database 99 (ERR DB index is out of range)')).toBe(1);
        expect(server.linesWith('unavailable')).toBe(0);
        expect(server.hasExited).toBe(false);
      } finally {
        await server?.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
