import Redis from 'ioredis';
import { leakedParts, PASSWORD_SHAPES } from '../src/testing/password-leaks';
import { freePort, PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { health, redisHealth } from '../src/testing/daily-limit';
import { depreciate } from '../src/testing/http';
import { RedisServer, untilAskedTwiceMore } from '../src/testing/redis-server';
import { runToExit, ServerProcess, startServer, untilShared } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

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
      const client = nextClient();
      const server = await startServer({ RATE_LIMIT_STORE: '', REDIS_URL: redis.url });
      try {
        await untilShared(server);
        expect(await health(server.port)).toEqual(redisHealth(true));
        await depreciate(server.port, { from: client });
        expect(await inspect.keys(`depreciation:daily:*:${client}`)).toHaveLength(1);
      } finally {
        await server.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'reaches a Redis whose password holds "@", a quote, a space and an encoded "/", and never prints it',
    async () => {
      const password = 'Q"7z W@k/+=Lp';
      const guarded = await RedisServer.start();
      const admin = new Redis(guarded.url);
      await admin.config('SET', 'requirepass', password);
      admin.disconnect();
      const url = (secret: string) =>
        `redis://:${secret.replace('/', '%2F')}@127.0.0.1:${guarded.port}`;
      let server: ServerProcess | undefined;
      try {
        server = await startServer({ REDIS_URL: url(password), LOG_LEVEL: 'debug' });
        await untilShared(server);
        await server.stop();
        expect(leakedParts(password, server.output)).toEqual([]);
        // A wrong one: Redis refuses it (WRONGPASS), the instance counts alone and says why.
        const wrong = 'Vn8@Hq "Zt/+';
        const output = await outputWith({ REDIS_URL: url(wrong) });
        expect(output).toMatch(/WRONGPASS/);
        expect([leakedParts(wrong, output), leakedParts(password, output)]).toEqual([[], []]);
      } finally {
        await server?.stop();
        await guarded.stop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'counts alone, never in database 0, when Redis refuses the database, and says so once',
    async () => {
      const client = nextClient();
      let server: ServerProcess | undefined;
      try {
        server = await startServer({ REDIS_URL: `${redis.url}/99`, NO_COLOR: '1' });
        expect(await health(server.port)).toEqual(redisHealth(false));
        for (let i = 0; i < 3; i++)
          expect((await depreciate(server.port, { from: client })).status).toBe(200);
        await untilAskedTwiceMore(inspect, 'select'); // the probe asks again, refused again
        expect(await inspect.keys(`*:${client}`)).toEqual([]);
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

/**
 * The built server's whole output with `env`, at LOG_LEVEL=debug: to its exit when it refuses to
 * start, else until it has logged that Redis is unavailable (or refuses it), and stopped.
 */
async function outputWith(env: Record<string, string>): Promise<string> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const server = new ServerProcess(port, metricsPort, { LOG_LEVEL: 'debug', ...env });
  const done = () => server.hasExited || /unavailable|WRONGPASS/.test(server.output);
  await waitFor('an exit, or Redis unavailable', () => Promise.resolve(done()), 20_000);
  await server.stop();
  return server.output;
}

describe("a password in REDIS_URL, in the built server's output", () => {
  let unreachable: number;

  beforeAll(async () => {
    unreachable = await freePort(); // nothing listens there
  });

  it.each(PASSWORD_SHAPES)(
    'is never printed, nor any part of it: %j',
    async (password) => {
      const urls = [
        // Refused: the database is not a number.
        `redis://app:${password}@127.0.0.1:${unreachable}/abc`,
        // As typed: refused if "/", "?", "#" or "%" would make ioredis read another password.
        `redis://app:${password}@127.0.0.1:${unreachable}`,
        // Percent-encoded: taken; Redis is not there.
        `redis://app:${encodeURIComponent(password)}@127.0.0.1:${unreachable}`,
      ];
      const outputs = await Promise.all(urls.map((url) => outputWith({ REDIS_URL: url })));
      for (const [i, url] of urls.entries()) {
        const output = outputs[i];
        expect(output).toMatch(/Invalid configuration: REDIS_URL|unavailable/);
        expect(output).not.toMatch(/\n\s+at /);
        expect([url, leakedParts(password, output)]).toEqual([url, []]);
        // Nor percent-encoded, as written in the URL: the output read with its escapes decoded.
        const decoded = output.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
          String.fromCharCode(parseInt(hex, 16)),
        );
        expect([url, leakedParts(password, decoded)]).toEqual([url, []]);
      }
    },
    PROCESS_TEST_TIMEOUT_MS * 2,
  );

  it.each([
    [
      'redis://app:Ab3/xY9+Qz@127.0.0.1:6379',
      'Invalid configuration: REDIS_URL="redis://***@127.0.0.1:6379" must percent-encode "/", "?", "#" and "%" in its user name and password (as %2F, %3F, %23 and %25)',
    ],
    [
      'redis://admin:Sup3r@Secret@127.0.0.1:6379/abc',
      'Invalid configuration: REDIS_URL="redis://***@127.0.0.1:6379/abc" must name its database with a whole number after the port, e.g. redis://127.0.0.1:6379/2',
    ],
    [
      'redis://app:50%off@127.0.0.1:6379',
      'Invalid configuration: REDIS_URL="redis://***@127.0.0.1:6379" must percent-encode "/", "?", "#" and "%" in its user name and password (as %2F, %3F, %23 and %25)',
    ],
    [
      'redis://:hunter2',
      'Invalid configuration: REDIS_URL (value not shown: it may hold a password) must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2',
    ],
  ])('%s stops start-up in one line, the password masked', async (url, line) => {
    const run = await runToExit({ REDIS_URL: url });
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
  });

  it.each([
    ['REDIS_SENTINELS', 'app:Sup3r@Vq8Kw@127.0.0.1:26379', { REDIS_SENTINEL_NAME: 'main' }],
    ['REDIS_CLUSTER_NODES', '127.0.0.1:7000,:Sup3r@Vq8Kw@127.0.0.1:7001', {}],
  ])('%s with credentials in it stops start-up without showing it', async (name, value, more) => {
    const run = await runToExit({ [name]: value, ...more });
    const rule =
      'must be host:port pairs separated by commas, an IPv6 address in brackets (e.g. 10.0.0.5:26379,[fd00::5]:26379)';
    const line = `Invalid configuration: ${name} (value not shown: it may hold a password) ${rule}`;
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
  });
});
