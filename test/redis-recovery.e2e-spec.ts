import Redis from 'ioredis';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { todayKey } from '../src/testing/daily-limit';
import { depreciate, send } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { isShared, ServerProcess, startServer, untilShared } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 20;
describeWithTools(
  ['redis-server'],
  'Bad values and restarts of Redis under two built instances',
  () => {
    let redis: RedisServer;
    let inspect: Redis;
    let a: ServerProcess;
    let b: ServerProcess;

    const startInstance = () =>
      startServer({
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: redis.url,
        RATE_LIMIT_PER_DAY: `${LIMIT}`,
      });
    /** `count` requests from `from`, alternating between a and b: how many passed. */
    const passed = async (count: number, from: string) => {
      let ok = 0;
      for (let i = 0; i < count; i++)
        if ((await depreciate((i % 2 ? b : a).port, { from })).status === 200) ok += 1;
      return ok;
    };
    const bothSharedAndReady = async () => {
      for (const server of [a, b]) {
        if (!(await isShared(server))) return false;
        if ((await send({ port: server.port, path: '/health/ready' })).status !== 200) return false;
      }
      return true;
    };

    beforeAll(async () => {
      redis = await RedisServer.start();
      inspect = new Redis(redis.url);
      [a, b] = await Promise.all([
        startInstance().then(untilShared),
        startInstance().then(untilShared),
      ]);
    }, PROCESS_TEST_TIMEOUT_MS);

    afterAll(async () => {
      inspect?.disconnect();
      await Promise.all([a?.stop(), b?.stop()]);
      await redis?.stop();
    }, PROCESS_TEST_TIMEOUT_MS);

    it('replaces a garbage counter for its client only: both instances stay ready and shared', async () => {
      const another = nextClient();
      const client = nextClient();
      expect(await passed(6, client)).toBe(6);
      await inspect.set(todayKey(client), 'abc');
      // Fail open from the last count the replacing instance saw: a answered the 5th (b the 6th),
      // so the key starts again at 5 and 15 more pass, not 20 and not every request.
      expect(await passed(2 * LIMIT, client)).toBe(LIMIT - 5);
      expect(await bothSharedAndReady()).toBe(true);
      // Another client is held to the limit across the two.
      expect(await passed(2 * LIMIT, another)).toBe(LIMIT);
      expect(a.linesWith('not a daily count') + b.linesWith('not a daily count')).toBe(1);
      expect(a.linesWith('unavailable') + b.linesWith('unavailable')).toBe(0);
    });

    it(
      'keeps a client within its limit when Redis restarts empty',
      async () => {
        const client = nextClient();
        expect(await passed(12, client)).toBe(12);
        await redis.kill();
        await redis.restart();
        await waitFor('both instances to share again', bothSharedAndReady, 10_000);
        expect(await inspect.hget(todayKey(client), 'total')).toBe('12');
        expect(await passed(2 * LIMIT, client)).toBe(LIMIT - 12);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  },
);
