import Redis from 'ioredis';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, PROCESS_TEST_TIMEOUT_MS, waitFor } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { health, redisHealth } from '../src/testing/daily-limit';
import { depreciate } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import {
  isShared,
  runToExit,
  ServerProcess,
  startServer,
  untilReady,
  untilShared,
} from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

/** What the Redis store checks of a real redis-server before it counts there: policy and ACL. */

const EVICTING = ['--maxmemory', '4mb', '--maxmemory-policy', 'allkeys-lru'];
/** An ACL user `app` (password `secret`) with every command but `denied`, on every key. */
const userWithout = (...denied: string[]) => [
  '--user',
  'app',
  'on',
  '>secret',
  '~*',
  '+@all',
  ...denied.map((command) => `-${command}`),
];
const asApp = (redis: RedisServer) => `redis://app:secret@127.0.0.1:${redis.port}`;

/** GET /health's body with Redis, naming the evicting policy. */
const withPolicy = (shared: boolean, evictionPolicy: string) => {
  const body = redisHealth(shared);
  return { ...body, dailyLimit: { ...body.dailyLimit, evictionPolicy } };
};

/** The log line's level, for the one line that contains `text`. */
const levelOf = (server: ServerProcess, text: string) =>
  server.logLines().filter((line) => String(line.msg).includes(text))[0]?.level;

describeWithTools(['redis-server'], 'The Redis store checks the server it counts in', () => {
  const servers: RedisServer[] = [];
  const instances: ServerProcess[] = [];
  let folder: string;

  const redisWith = async (args: string[], options: { port?: number; config?: string } = {}) => {
    const redis = await RedisServer.start(args, options);
    servers.push(redis);
    return redis;
  };
  const instance = async (env: Record<string, string>) => {
    const server = await startServer({ NO_COLOR: '1', ...env });
    instances.push(server);
    return server;
  };

  beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'redis-check-'))));
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((server) => server.stop()));
    await Promise.all(servers.splice(0).map((redis) => redis.stop()));
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it.each(['allkeys-lru', 'volatile-lru'])(
    'refuses to start on a Redis whose maxmemory-policy is %s, in one line, exit code 1',
    async (policy) => {
      const redis = await redisWith(['--maxmemory', '4mb', '--maxmemory-policy', policy]);
      const { code, stderr } = await runToExit({
        REDIS_URL: redis.url,
        PORT: '0',
        METRICS_PORT: '0',
      });
      expect([code, stderr]).toEqual([
        1,
        `Redis at 127.0.0.1:${redis.port} has maxmemory-policy ${policy}, which can evict the daily counters (an evicted counter is a fresh budget): noeviction is required (or set REDIS_ALLOW_EVICTION=true to accept the risk)\n`,
      ]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'starts with REDIS_ALLOW_EVICTION=true, warns once, and names the policy in /health',
    async () => {
      const redis = await redisWith(EVICTING);
      const server = await untilShared(
        await instance({ REDIS_URL: redis.url, REDIS_ALLOW_EVICTION: 'true' }),
      );
      expect(await health(server.port)).toEqual(withPolicy(true, 'allkeys-lru'));
      const line = `Redis at 127.0.0.1:${redis.port} has maxmemory-policy allkeys-lru, which can evict the daily counters (an evicted counter is a fresh budget): accepted (REDIS_ALLOW_EVICTION=true)`;
      expect(server.linesWith(line)).toBe(1);
      expect(levelOf(server, line)).toBe('warn');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it.each([
    ['an ACL user without +config', () => redisWith([...EVICTING, ...userWithout('config')])],
    [
      'CONFIG renamed away (rename-command in the config file)',
      () => {
        const config = join(folder, 'renamed.conf');
        writeFileSync(config, 'rename-command CONFIG ""\nuser app on >secret ~* +@all\n');
        return redisWith(EVICTING, { config });
      },
    ],
  ])(
    'starts and warns once that it could not check the policy with %s',
    async (_case, start) => {
      const redis = await start();
      const server = await untilShared(await instance({ REDIS_URL: asApp(redis) }));
      expect(await health(server.port)).toEqual(redisHealth(true));
      const line = `Could not check the maxmemory-policy of Redis at 127.0.0.1:${redis.port} (`;
      expect(server.linesWith(line)).toBe(1);
      expect(server.linesWith('it must be noeviction, or counters may be evicted')).toBe(1);
      expect(levelOf(server, line)).toBe('warn');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'says degraded from start-up, and why, when the user may not run EVAL or EVALSHA',
    async () => {
      const redis = await redisWith(userWithout('eval', 'evalsha'));
      const server = await untilReady(await instance({ REDIS_URL: asApp(redis) }));
      // Before any request: the script was never refused yet, the start-up check tells.
      expect(await health(server.port)).toEqual(redisHealth(false));
      const line = `Redis at 127.0.0.1:${redis.port} does not let this user run the daily-count script (NOPERM`;
      expect(server.linesWith(line)).toBe(1);
      expect(server.linesWith('unavailable at start-up')).toBe(0);
      expect((await depreciate(server.port, { from: nextClient() })).status).toBe(200);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'serving already when an evicting Redis comes up: counts alone until it is noeviction',
    async () => {
      const port = await freePort();
      const server = await untilReady(
        await instance({ REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' }),
      );
      const redis = await redisWith(EVICTING, { port });
      const refusal = `Redis at 127.0.0.1:${port} has maxmemory-policy allkeys-lru, which can evict the daily counters (an evicted counter is a fresh budget): noeviction is required (or set REDIS_ALLOW_EVICTION=true to accept the risk); counting in this instance's memory until it is noeviction`;
      await waitFor('the refusal', () => Promise.resolve(server.linesWith(refusal) === 1));
      expect(await health(server.port)).toEqual(withPolicy(false, 'allkeys-lru'));
      expect(server.hasExited).toBe(false);

      const admin = new Redis(redis.url);
      await admin.config('SET', 'maxmemory-policy', 'noeviction').finally(() => admin.quit());
      await waitFor('the instance to share counters', () => isShared(server));
      expect(await health(server.port)).toEqual(redisHealth(true));
      expect(server.linesWith(refusal)).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
