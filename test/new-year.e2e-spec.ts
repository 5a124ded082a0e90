import { BuiltServer } from './helpers/built-server';
import { sleep } from './helpers/free-port';
import { depreciate, remaining, validRequest } from './helpers/http-client';
import { PROCESS_TEST_TIMEOUT_MS } from './helpers/child-process';
import { RedisServer } from './helpers/redis-server';
import { describeWithTools } from './helpers/system-tools';

const LIMIT = 2;
/** The servers' clock starts here and runs on: a few seconds to do the checks before midnight. */
const START = '@2026-12-31 23:59:52';

describeWithTools(
  ['faketime', 'redis-server'],
  'New year under faketime (built servers, memory and Redis stores)',
  () => {
    let redis: RedisServer;
    const servers: Record<'memory' | 'redis', BuiltServer | undefined> = {
      memory: undefined,
      redis: undefined,
    };

    beforeAll(async () => {
      redis = await RedisServer.start();
      const env = { RATE_LIMIT_PER_DAY: String(LIMIT) };
      [servers.memory, servers.redis] = await Promise.all([
        BuiltServer.start({ faketime: START, env }),
        BuiltServer.start({
          faketime: START,
          env: { ...env, RATE_LIMIT_STORE: 'redis', REDIS_URL: redis.url },
        }),
      ]);
    }, PROCESS_TEST_TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all([servers.memory?.stop(), servers.redis?.stop()]);
      await redis?.stop();
    });

    it(
      'frees the limited client and accepts the new year after midnight UTC',
      async () => {
        const urls = [servers.memory!.url, servers.redis!.url];
        const nextYear = { body: validRequest(2027) };
        // Before midnight: the client uses its budget up, and 2027 is a future year.
        const before = async (url: string) => {
          const answers = [];
          for (let i = 0; i <= LIMIT; i++) answers.push(await depreciate(url, '127.0.0.31'));
          const early = await depreciate(url, '127.0.0.32', nextYear);
          return {
            statuses: [...answers, early].map((answer) => answer.status),
            last: answers[LIMIT],
          };
        };
        const early = await Promise.all(urls.map(before));
        for (const { statuses } of early) expect(statuses).toEqual([200, 200, 429, 400]);
        const secondsToMidnight = Math.max(
          ...early.map(({ last }) => Number(last.headers['retry-after'])),
        );
        expect(secondsToMidnight).toBeGreaterThan(0);
        expect(secondsToMidnight).toBeLessThanOrEqual(8);

        await sleep(secondsToMidnight * 1000 + 300);

        for (const url of urls) {
          const after = await depreciate(url, '127.0.0.31');
          expect(after.status).toBe(200);
          expect(remaining(after)).toBe(LIMIT - 1);
          expect(Number(after.headers['x-ratelimit-reset'])).toBeGreaterThan(86_390);
          const newYear = await depreciate(url, '127.0.0.32', nextYear);
          expect(newYear.status).toBe(200);
          expect(newYear.body).toMatchObject({
            success: true,
            data: {
              currentValue: 25_000,
              yearlyBreakdown: [{ year: 2027, age: 0, value: 25_000 }],
            },
            meta: { vehicleType: 'sedan', vehicleAge: 0 },
          });
        }
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  },
);
