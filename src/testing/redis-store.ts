import Redis from 'ioredis';
import type { RedisDailyLimitStorage } from '../rate-limit/redis/redis-daily-limit.storage';
import { PROCESS_TEST_TIMEOUT_MS, waitFor } from './processes';
import { RecordingLogger } from './recording-logger';
import { SettableClock } from './settable-clock';
import { startRedisStore } from './daily-limit';
import { RedisServer } from './redis-server';

/** What useRedisStore gives each test: set afresh before it, so read it inside the test. */
interface RedisStoreFixture {
  /** The describe's redis-server, emptied before each test. */
  server: RedisServer;
  /** A plain client of it, to read and spoil keys. */
  inspect: Redis;
  /** The stores' clock, at `at` when each test starts. */
  clock: SettableClock;
  /** The stores' log lines of this test. */
  logger: RecordingLogger;
  /** A Redis store on `url` (the describe's server unless given), stopped after the test. */
  start(url?: string): Promise<RedisDailyLimitStorage>;
}

/**
 * The Redis store's fixture, called inside a describe: one real redis-server for the describe,
 * and per test an empty database, a clock at `at`, a fresh logger, and the stores it started
 * stopped after it.
 */
export function useRedisStore(at: string): RedisStoreFixture {
  const stores: RedisDailyLimitStorage[] = [];
  const fixture = {
    clock: new SettableClock(at),
    logger: new RecordingLogger(),
    start: async (url = fixture.server.url) => {
      const store = await startRedisStore(url, fixture.clock, fixture.logger);
      stores.push(store);
      // On a loaded machine the first connection can outlast the 1 s start-up wait: the tests
      // begin from a store that shares (a database Redis refuses never does).
      if (url === fixture.server.url) {
        await waitFor('the store to share', () => Promise.resolve(store.state().shared));
      }
      return store;
    },
  } as RedisStoreFixture;

  beforeAll(async () => {
    fixture.server = await RedisServer.start();
    fixture.inspect = new Redis(fixture.server.url);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    fixture.inspect?.disconnect();
    await fixture.server?.stop();
  });

  beforeEach(async () => {
    await fixture.inspect.flushall();
    fixture.clock = new SettableClock(at);
    fixture.logger = new RecordingLogger();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.onApplicationShutdown()));
  });

  return fixture;
}
