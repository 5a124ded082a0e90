import { LoggerService } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import type { RedisTopology } from '../config/redis-topology';
import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
  utcDayNumber,
} from '../rate-limit/daily-limit.storage';
import { MemoryDailyLimitStorage } from '../rate-limit/memory-daily-limit.storage';
import { createRedisClient } from '../rate-limit/redis/redis-clients';
import { RedisDailyLimitStorage } from '../rate-limit/redis/redis-daily-limit.storage';
import { RedisConnection } from '../rate-limit/redis/redis-connection';
import { dayKey } from '../rate-limit/redis/redis-daily-count-script';
import { ISO_TIME } from './bodies';
import { HttpAnswer, send } from './http';

/**
 * A client's Redis key of today, by the store's own key function: the tests inspect and seed it.
 * `clock` is the one the server counts by: a built server's is this machine's (SystemClock).
 */
export const todayKey = (client: string, clock: Clock = new SystemClock()) =>
  dayKey(client, utcDayNumber(clock.now().getTime()));

/** X-RateLimit-Remaining as a number. */
export const remaining = (answer: HttpAnswer): number =>
  Number(answer.headers['x-ratelimit-remaining']);

/** GET /health's body. */
export const health = async (port: number): Promise<unknown> =>
  (await send({ port, path: '/health' })).json;

/**
 * GET /health's whole body with RATE_LIMIT_STORE=redis: counters shared in Redis, or (degraded)
 * counted in the instance's memory while Redis is unavailable; `since` when that began.
 */
export const redisHealth = (shared: boolean, topology: RedisTopology = 'standalone') => ({
  status: shared ? 'ok' : 'degraded',
  dailyLimit: {
    store: 'redis',
    topology,
    counting: shared ? 'redis' : 'memory',
    shared,
    since: expect.stringMatching(ISO_TIME),
  },
});

/** A storage that finds every client over its limit, `resetSeconds` before midnight; keeps the keys. */
export class OverLimitStorage extends DailyLimitStorage {
  readonly keys: string[] = [];

  constructor(private readonly resetSeconds = 60) {
    super();
  }

  hit(key: string, limit: number): Promise<DailyLimitRecord> {
    this.keys.push(key);
    return Promise.resolve(dailyRecord(limit + 1, limit, this.resetSeconds));
  }

  state(): DailyLimitState {
    return { store: 'memory', counting: 'memory', shared: false };
  }
}

/**
 * A Redis store on `url` with a memory store of its own (one instance), started. Its clock is set
 * by hand, days from Redis's: the offset is measured but never shown (no threshold), so that the
 * tests' logs and states say what they test (test/redis-clock-offset.e2e-spec.ts tests the offset).
 */
export async function startRedisStore(
  url: string,
  clock: Clock,
  logger: LoggerService,
): Promise<RedisDailyLimitStorage> {
  const memory = new MemoryDailyLimitStorage(clock);
  const connection = new RedisConnection(
    // 1 s, not the 200 ms default: a stall of a loaded test machine must not pass for a slow Redis
    // (a frozen one still times out).
    { topology: 'standalone', client: createRedisClient(url, 1_000) },
    'test-redis',
  );
  const storage = new RedisDailyLimitStorage(connection, memory.fallback, clock, logger, {
    allowEviction: false,
    clockOffsetWarnMs: Number.POSITIVE_INFINITY,
  });
  await storage.onModuleInit();
  return storage;
}
