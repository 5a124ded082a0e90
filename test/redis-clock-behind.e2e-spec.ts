import Redis from 'ioredis';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { nextClients } from '../src/testing/clients';
import { remaining } from '../src/testing/daily-limit';
import { depreciate } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { isShared, ServerProcess, startServer, untilShared } from '../src/testing/server-process';
import { describeWithTools, LIBFAKETIME } from '../src/testing/system-tools';

/** The clients, each on a key of the 27th (the day counted in). */
const [A, C, D] = nextClients(3);
const keyOf = (client: string) => `depreciation:daily:2026-11-27:${client}`;

/**
 * The built server with the Redis store on a clock this test sets (libfaketime, as in
 * clock-step-back.e2e-spec.ts), against a real redis-server, whose clock is this machine's. The
 * clock steps back from 00:00:30 on the 27th to 23:58:00 on the 26th; the store keeps counting in
 * the 27th, and so must its catch-up after an outage: the re-add to a Redis that came back empty,
 * the hits counted alone, their keys' expiry and the reset headers.
 */
describeWithTools(
  ['faketime', 'redis-server'],
  'the Redis store with a clock behind the day counted in (built server, faketime)',
  () => {
    let redis: RedisServer;
    let inspect: Redis;
    let server: ServerProcess;
    let dir: string;
    const setClock = (utc: string) => writeFileSync(join(dir, 'faketime'), `${utc}\n`);

    /** `count` requests from `from`: the last answer's status, remaining budget and reset. */
    const send = async (from: string, count = 1) => {
      let answer = await depreciate(server.port, { from });
      for (let i = 1; i < count; i++) answer = await depreciate(server.port, { from });
      return [answer.status, remaining(answer), Number(answer.headers['x-ratelimit-reset'])];
    };
    const shared = (what: string) => waitFor(what, () => isShared(server), 10_000);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'redis-clock-behind-'));
      setClock('2026-11-27 00:00:30');
      redis = await RedisServer.start();
      inspect = new Redis(redis.url);
      server = await startServer({
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE: join(dir, 'faketime'),
        FAKETIME_NO_CACHE: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
        TZ: 'UTC',
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: redis.url,
        RATE_LIMIT_PER_DAY: '100',
      }).then(untilShared);
    }, PROCESS_TEST_TIMEOUT_MS);

    afterAll(async () => {
      inspect?.disconnect();
      await server?.stop();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, PROCESS_TEST_TIMEOUT_MS);

    it(
      "keeps the 27th's counts, expiries and reset through an outage and an empty Redis",
      async () => {
        expect(await send(A, 61)).toEqual([200, 39, 86_370]);
        setClock('2026-11-26 23:58:00');
        // Still the 27th, whose end is 86,520 s away by this clock (as the memory store says).
        expect(await send(A)).toEqual([200, 38, 86_520]);

        // Frozen: D's request times out and the instance counts alone; C's come while alone.
        redis.pause();
        try {
          expect(await send(D)).toEqual([200, 99, 86_520]);
          expect(await send(C, 3)).toEqual([200, 97, 86_520]);
        } finally {
          redis.resume();
        }
        await shared('the instance to share again after the freeze');
        // C's hits counted alone were written to the 27th's key, which lives to the 27th's end.
        expect(await inspect.hget(keyOf(C), 'total')).toBe('3');
        expect(await inspect.ttl(keyOf(C))).toBeGreaterThan(86_400);

        await redis.kill();
        await redis.restart();
        await shared('the instance to share again after Redis restarted empty');
        expect(server.linesWith('re-adding what this instance counted today for 3 clients')).toBe(
          1,
        );
        expect(await inspect.hget(keyOf(A), 'total')).toBe('62');
        expect(await inspect.ttl(keyOf(A))).toBeGreaterThan(86_400);
        // The re-added count holds: not an operator's reset.
        expect(await send(A)).toEqual([200, 37, 86_520]);
        expect(await send(C)).toEqual([200, 96, 86_520]);
        expect(await inspect.hget(keyOf(A), 'total')).toBe('63');
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  },
);
