import Redis, { Result } from 'ioredis';

/**
 * Hits added in one atomic round trip: INCRBY the day's key, and when this made the key (its count
 * is what was added) let it expire after the day. A request adds 1; an instance back from an outage
 * adds what it counted alone. A relative EXPIRE (seconds computed by the instance) rather than an
 * absolute EXPIREAT: if Redis's clock ran ahead of the instances', an EXPIREAT in Redis's past
 * would delete the key at once and every request would look like the day's first.
 */
export const DAILY_ADD_LUA = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[1])
if hits == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return hits`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** INCRBY `key` by `hits`; if that made it, EXPIRE it in `ttlSeconds`. Answers the new count. */
    dailyAdd(key: string, hits: number, ttlSeconds: number): Result<number, Context>;
  }
}

/** A reply slower than this counts as Redis unavailable: the request is counted in memory. */
export const REDIS_COMMAND_TIMEOUT_MS = 200;

/**
 * An ioredis client for the daily counters that never makes a request wait for Redis: no offline
 * queue (a command while disconnected fails at once), a bounded reply time, no retried commands,
 * and reconnection forever in the background, at most a second apart.
 */
export function createRedisClient(url: string): Redis {
  return new Redis(url, {
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1_000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    scripts: { dailyAdd: { lua: DAILY_ADD_LUA, numberOfKeys: 1 } },
  });
}

/** host:port of a Redis URL, for logs (never its password). */
export function redisAddress(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '6379'}`;
}
