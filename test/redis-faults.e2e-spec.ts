import { PROCESS_TEST_TIMEOUT_MS, sleep, waitFor } from '../src/testing/processes';
import { nextClient, nextClients } from '../src/testing/clients';
import { health, redisHealth, remaining } from '../src/testing/daily-limit';
import { depreciate, send, TimedAnswer } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { isShared, ServerProcess, startServer, untilShared } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 20;
/** Generous: a request in fallback takes a few ms; a slow Redis costs at most its 200 ms timeout. */
const MAX_LATENCY_MS = 1_000;

describeWithTools(['redis-server'], 'Redis faults under two built instances', () => {
  let redis: RedisServer;
  let a: ServerProcess;
  let b: ServerProcess;
  /** Readiness as an operator who prefers strict sharing sets it. */
  let strict: ServerProcess;

  const startInstance = (env: Record<string, string> = {}) =>
    startServer({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_DAY: String(LIMIT),
      LOG_LEVEL: 'info', // the return to shared counting is logged at info
      NO_COLOR: '1',
      ...env,
    });
  const bothShared = async () => (await Promise.all([isShared(a), isShared(b)])).every(Boolean);

  /** `count` requests alternating between a and b from `from`: every answer 2xx/4xx, and fast. */
  async function alternate(count: number, from: string): Promise<TimedAnswer[]> {
    const answers: TimedAnswer[] = [];
    for (let i = 0; i < count; i++) answers.push(await depreciate((i % 2 ? b : a).port, { from }));
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(500);
      expect(answer.ms).toBeLessThan(MAX_LATENCY_MS);
    }
    return answers;
  }

  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b, strict] = await Promise.all([
      startInstance().then(untilShared),
      startInstance().then(untilShared),
      startInstance({ READINESS_REQUIRES_SHARED_COUNTERS: 'true' }).then(untilShared),
    ]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), strict?.stop()]);
    await redis?.stop();
  }, PROCESS_TEST_TIMEOUT_MS);

  it(
    'keeps answering and ready when Redis dies, says so once, and shares again when it is back',
    async () => {
      const [before, alone, after] = nextClients(3);
      expect((await alternate(4, before)).map(remaining)).toEqual([19, 18, 17, 16]);

      const killedAt = new Date().toISOString();
      await redis.kill();
      const during = await alternate(2 * LIMIT, alone);
      // Each instance counts alone now: its own budget for the client, never a 5xx.
      expect(during.filter((answer) => answer.status === 200)).toHaveLength(2 * LIMIT);
      for (const server of [a, b]) {
        const state = (await health(server.port)) as { dailyLimit: { since: string } };
        expect(state).toEqual(redisHealth(false));
        // Since the outage began: after Redis was killed.
        const { since } = state.dailyLimit;
        expect(since >= killedAt).toBe(true);
        expect(server.linesWith('unavailable')).toBe(1);
        // Ready all the same: it serves, and a Redis outage must leave the balancer backends.
        const ready = await send({ port: server.port, path: '/health/ready' });
        const alone = { status: 'up', ...redisHealth(false).dailyLimit };
        expect([ready.status, ready.json]).toEqual([
          200,
          { status: 'ok', info: { dailyLimit: alone }, error: {}, details: { dailyLimit: alone } },
        ]);
        const live = await send({ port: server.port, path: '/health/live' });
        expect([live.status, live.json]).toEqual([
          200,
          { status: 'ok', info: {}, error: {}, details: {} },
        ]);
        const metrics = await server.metrics();
        expect(metrics).toContain('daily_limit_store_shared{store="redis"} 0');
      }
      // READINESS_REQUIRES_SHARED_COUNTERS=true: not ready while counting alone.
      await waitFor('the strict instance to count alone', async () => !(await isShared(strict)));
      const strictSince = ((await health(strict.port)) as { dailyLimit: { since: string } })
        .dailyLimit.since;
      const notReady = await send({ port: strict.port, path: '/health/ready' });
      expect([notReady.status, notReady.json]).toEqual([
        503,
        {
          statusCode: 503,
          message: `Not ready: Redis unavailable since ${strictSince}: counting in memory`,
        },
      ]);

      await redis.restart();
      await waitFor('both instances to share counters again', bothShared);
      expect((await alternate(4, after)).map(remaining)).toEqual([19, 18, 17, 16]);
      const shared = { status: 'up', ...redisHealth(true).dailyLimit };
      await waitFor('the strict instance to share again', () => isShared(strict));
      for (const server of [a, b, strict]) {
        const ready = await send({ port: server.port, path: '/health/ready' });
        expect([ready.status, ready.json]).toEqual([
          200,
          {
            status: 'ok',
            info: { dailyLimit: shared },
            error: {},
            details: { dailyLimit: shared },
          },
        ]);
        const metrics = await server.metrics();
        expect(metrics).toContain('daily_limit_store_shared{store="redis"} 1');
        expect(server.linesWith('unavailable')).toBe(1);
        expect(server.linesWith('Daily counters shared in Redis')).toBe(2);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'does not wait on a frozen Redis, and shares again once it answers',
    async () => {
      const other = nextClient();
      const client = nextClient();
      redis.pause();
      try {
        await alternate(10, client);
        expect(await isShared(a)).toBe(false);
        expect(await isShared(b)).toBe(false);
      } finally {
        redis.resume();
      }
      // The connection stayed open (no reconnection to announce it): without any request, each
      // instance's own probe finds Redis back, and readiness follows.
      await waitFor('both instances to share counters again', bothShared, 10_000);
      for (const server of [a, b]) {
        expect((await send({ port: server.port, path: '/health/ready' })).status).toBe(200);
      }
      expect((await alternate(2, other)).map(remaining)).toEqual([19, 18]);
      // The 10 requests of the freeze reached Redis. The first on each instance timed out, and the
      // frozen Redis applied it late as well: a timed-out command may or may not have been applied,
      // so it is counted again (at most one over, never under). 13th and 14th of the day.
      expect((await alternate(2, client)).map(remaining)).toEqual([7, 6]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'keeps the day exact across an outage: what an instance counted alone reaches Redis',
    async () => {
      const z = nextClient();
      const through = async (server: ServerProcess, count: number) => {
        const answers: TimedAnswer[] = [];
        for (let i = 0; i < count; i++) answers.push(await depreciate(server.port, { from: z }));
        return answers.filter((answer) => answer.status === 200).length;
      };
      expect(await through(a, 8)).toBe(8);
      redis.pause();
      let passedAlone: number;
      try {
        // A counts alone from the 8 it saw: 12 more pass, then it refuses.
        passedAlone = await through(a, 16);
      } finally {
        redis.resume();
      }
      expect(passedAlone).toBe(LIMIT - 8);
      await waitFor('both instances to share counters again', bothShared, 10_000);
      // B sees the day's true count: nothing more passes, 20 in all.
      expect(await through(b, 10)).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'starts without Redis, counting in memory, and shares once Redis comes up',
    async () => {
      const client = nextClient();
      await redis.kill();
      const lonely = await startInstance();
      try {
        expect(await health(lonely.port)).toEqual(redisHealth(false));
        expect((await depreciate(lonely.port, { from: client })).status).toBe(200);
        expect(lonely.output).toContain('unavailable at start-up');
        await redis.restart();
        await waitFor('the instance to share counters', () => isShared(lonely));
      } finally {
        await lonely.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'keeps every request in flight on a frozen Redis within REDIS_COMMAND_TIMEOUT_MS',
    async () => {
      // Long enough to tell one timeout from two however loaded the machine is.
      const timeoutMs = 1_000;
      const slow = await startInstance({ REDIS_COMMAND_TIMEOUT_MS: String(timeoutMs) });
      const sent: Promise<TimedAnswer>[] = [];
      try {
        await untilShared(slow);
        redis.pause();
        // One request, then more while its command is waiting on the frozen Redis.
        for (let i = 0; i < 4; i++) {
          sent.push(depreciate(slow.port, { from: nextClient() }));
          // A fixed wait: no state shows a command queued on a frozen Redis (it answers nothing,
          // and the instance exposes no command queue); 100 ms spaces the requests within it.
          await sleep(100);
        }
        const answers = await Promise.all(sent);
        expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
        // The first waited for the configured timeout, not the default 200 ms…
        expect(answers[0].ms).toBeGreaterThanOrEqual(timeoutMs - 50);
        // …and none waited for two (1.9 s for the second before the bound was kept).
        for (const answer of answers) expect(answer.ms).toBeLessThan(timeoutMs * 1.5);
      } finally {
        redis.resume();
        await slow.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
