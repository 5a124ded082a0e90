import Redis from 'ioredis';
import { DAILY_COUNT_LUA } from './redis-daily-count';

/** A reply slower than this counts as Redis unavailable: the request is counted in memory. */
export const REDIS_COMMAND_TIMEOUT_MS = 200;

/**
 * An ioredis client for the daily counters that never makes a request wait for Redis: no offline
 * queue (a command while disconnected fails at once), a bounded reply time, no retried commands,
 * and reconnection forever in the background, at most a second apart. `url` is valid
 * (environment.ts checks its database number, which ioredis would not).
 */
export function createRedisClient(url: string): Redis {
  return new Redis(url, {
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    scripts: { dailyCount: { lua: DAILY_COUNT_LUA, numberOfKeys: 1 } },
  });
}

/** host:port of a Redis URL, for logs (never its password). */
export function redisAddress(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '6379'}`;
}
