import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { health, redisHealth, remaining } from '../src/testing/daily-limit';
import { depreciate, send } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { ServerProcess, startServer, untilShared } from '../src/testing/server-process';
import { describeWithTools, LIBFAKETIME } from '../src/testing/system-tools';

/** libfaketime for a server, its clock from `file` (FAKETIME_NO_CACHE: read at every call). */
const clockFromFile = (file: string) => ({
  LD_PRELOAD: LIBFAKETIME,
  FAKETIME_TIMESTAMP_FILE: file,
  FAKETIME_NO_CACHE: '1',
  FAKETIME_DONT_FAKE_MONOTONIC: '1',
  TZ: 'UTC',
});

/** daily_limit_clock_offset_seconds in a server's metrics, or undefined without a sample. */
const offsetGauge = async (server: ServerProcess): Promise<number | undefined> => {
  const sample = /^daily_limit_clock_offset_seconds\{reference="redis"\} (\S+)$/m.exec(
    await server.metrics(),
  );
  return sample ? Number(sample[1]) : undefined;
};

describeWithTools(
  ['faketime', 'redis-server'],
  'clocks that disagree (built servers, faketime, Redis TIME)',
  () => {
    let redis: RedisServer;
    let dir: string;
    const servers: ServerProcess[] = [];
    const setClock = (name: string, utc: string) => writeFileSync(join(dir, name), `${utc}\n`);
    const start = async (env: Record<string, string>) => {
      const server = await startServer({ RATE_LIMIT_STORE: 'redis', REDIS_URL: redis.url, ...env });
      servers.push(server);
      return untilShared(server);
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'redis-clock-offset-'));
      redis = await RedisServer.start();
    }, PROCESS_TEST_TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, PROCESS_TEST_TIMEOUT_MS);

    it(
      "shows an instance whose clock is 90 s off Redis's in /health and a gauge, and keeps it ready",
      async () => {
        // libfaketime's relative form: this machine's clock, running, 90 s ahead.
        const ahead = await start({
          LD_PRELOAD: LIBFAKETIME,
          FAKETIME: '+90',
          FAKETIME_DONT_FAKE_MONOTONIC: '1',
        });
        const onTime = await start({});
        await waitFor('the offset measured', async () => (await offsetGauge(ahead)) !== undefined);
        const gauge = await offsetGauge(ahead);
        expect(gauge).toBeGreaterThan(89.9);
        expect(gauge).toBeLessThan(90.1);
        const body = (await health(ahead.port)) as { dailyLimit: { clockOffsetSeconds: number } };
        expect(body).toEqual({
          ...redisHealth(true),
          dailyLimit: { ...redisHealth(true).dailyLimit, clockOffsetSeconds: expect.any(Number) },
        });
        expect(Math.abs(body.dailyLimit.clockOffsetSeconds - 90)).toBeLessThan(0.1);
        // Visible, not a reason to leave the balancer: the fault may as well be Redis's clock.
        const ready = await send({ port: ahead.port, path: '/health/ready' });
        expect(ready.status).toBe(200);
        expect(ready.json).toMatchObject({
          details: { dailyLimit: { clockOffsetSeconds: body.dailyLimit.clockOffsetSeconds } },
        });
        expect(ahead.linesWith("This instance's clock is +")).toBe(1);

        await waitFor('the offset measured', async () => (await offsetGauge(onTime)) !== undefined);
        expect(Math.abs((await offsetGauge(onTime)) ?? NaN)).toBeLessThan(0.1);
        expect(await health(onTime.port)).toEqual(redisHealth(true));
        expect(onTime.linesWith("This instance's clock")).toBe(0);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );

    it(
      'lets a client the limit in each day when two instances disagree across midnight (docs/contract.md)',
      async () => {
        setClock('a', '2026-12-02 23:59:58');
        setClock('b', '2026-12-03 00:00:02');
        const limit = { RATE_LIMIT_PER_DAY: '5' };
        const [a, b] = await Promise.all([
          start({ ...clockFromFile(join(dir, 'a')), ...limit }),
          start({ ...clockFromFile(join(dir, 'b')), ...limit }),
        ]);
        const client = nextClient();
        const through = async (server: ServerProcess, count: number) => {
          const answers = [];
          for (let i = 0; i < count; i++)
            answers.push(await depreciate(server.port, { from: client }));
          return answers.map((answer) => [answer.status, remaining(answer)]);
        };
        const spent = [
          [200, 4],
          [200, 3],
          [200, 2],
          [200, 1],
          [200, 0],
          [429, 0],
        ];
        // A counts in the 2nd, B in the 3rd: each day's budget whole, 5 + 5.
        expect(await through(a, 6)).toEqual(spent);
        expect(await through(b, 6)).toEqual(spent);
        // Once A's clock is past midnight too, both count in the 3rd: nothing more passes.
        setClock('a', '2026-12-03 00:00:03');
        expect(await through(a, 1)).toEqual([[429, 0]]);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  },
);
