import { PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { VALID } from '../src/testing/bodies';
import { nextClient } from '../src/testing/clients';
import { remaining } from '../src/testing/daily-limit';
import { depreciate, send } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { ServerProcess, startServer, untilReady } from '../src/testing/server-process';
import { LIBFAKETIME } from '../src/testing/system-tools';
import { describeWithTools } from '../src/testing/system-tools';

const LIMIT = 2;

/** VALID bought in 2027: refused until the new year. */
const NEW_YEAR_CAR = { ...VALID, purchaseYear: 2027 };

/** The whole answer for NEW_YEAR_CAR in 2027, at `calculatedAt`: age 0, nothing lost yet. */
const newYearCarAnswer = (calculatedAt: unknown) => ({
  success: true,
  data: {
    currentValue: 25_000,
    totalDepreciation: 0,
    totalDepreciationPercent: 0,
    monthlyDepreciation: 0,
    yearlyBreakdown: [
      { year: 2027, age: 0, value: 25_000, depreciation: 0, depreciationPercent: 0 },
    ],
  },
  meta: { vehicleType: 'sedan', vehicleAge: 0, calculatedAt },
});

/** libfaketime's clock, `@` starting it at that time and letting it run: a few seconds to check things before midnight. */
const fakeTime = (localStart: string, zone: string) => ({
  LD_PRELOAD: LIBFAKETIME,
  FAKETIME: `@${localStart}`, // read in the process's own time zone
  TZ: zone,
});

/** The UTC year of the server's own clock (libfaketime's), as its answers' Date header gives it. */
const yearOf = async ({ port }: ServerProcess): Promise<number> =>
  new Date(String((await send({ port, path: '/health/live' })).headers.date)).getUTCFullYear();

// The new-year rule (a purchase year of next year is valid from 00:00 UTC on 1 January) is tested
// here, across a real midnight; at the millisecond, in src/depreciation/depreciation.service.spec.ts.
describeWithTools(['faketime', 'redis-server'], 'New year under faketime (built servers)', () => {
  let redis: RedisServer;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    const limit = { RATE_LIMIT_PER_DAY: String(LIMIT) };
    servers = await Promise.all([
      // 12 s before 00:00 UTC (a start takes about 0.5 s, a few seconds on a loaded machine), in
      // a zone where it is already 2027: the UTC year and day still rule.
      startServer({ ...fakeTime('2027-01-01 13:59:48', 'Pacific/Kiritimati'), ...limit }),
      startServer({
        ...fakeTime('2026-12-31 23:59:48', 'UTC'),
        ...limit,
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: redis.url,
      }).then(untilReady),
    ]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await redis?.stop();
  }, PROCESS_TEST_TIMEOUT_MS);

  it(
    'frees the limited client and accepts the new year after midnight UTC (memory and Redis stores)',
    async () => {
      const newYearClient = nextClient();
      const client = nextClient();
      // Before midnight: the client uses its budget up, and 2027 is a future year.
      const before = async ({ port }: ServerProcess) => {
        const answers = [];
        for (let i = 0; i <= LIMIT; i++) answers.push(await depreciate(port, { from: client }));
        const early = await depreciate(port, { from: newYearClient, body: NEW_YEAR_CAR });
        return {
          statuses: [...answers, early].map((answer) => answer.status),
          last: answers[LIMIT],
        };
      };
      const early = await Promise.all(servers.map(before));
      for (const { statuses } of early) expect(statuses).toEqual([200, 200, 429, 400]);
      const waits = early.map(({ last }) => Number(last.headers['retry-after']));
      for (const seconds of waits) expect(seconds).toBeGreaterThan(0);
      for (const seconds of waits) expect(seconds).toBeLessThanOrEqual(12);

      for (const server of servers)
        await waitFor(
          '00:00 UTC on the server',
          async () => (await yearOf(server)) === 2027,
          30_000,
        );

      for (const { port } of servers) {
        const after = await depreciate(port, { from: client });
        expect(after.status).toBe(200);
        expect(remaining(after)).toBe(LIMIT - 1);
        expect(Number(after.headers['x-ratelimit-reset'])).toBeGreaterThan(86_390);
        const newYear = await depreciate(port, { from: newYearClient, body: NEW_YEAR_CAR });
        expect(newYear.status).toBe(200);
        // Seconds after midnight UTC, in either zone.
        expect(newYear.json).toEqual(
          newYearCarAnswer(expect.stringMatching(/^2027-01-01T00:00:\d\d\.\d{3}Z$/)),
        );
      }
    },
    2 * PROCESS_TEST_TIMEOUT_MS, // up to 12 s of it waiting for midnight
  );
});
