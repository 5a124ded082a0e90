import { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisTopology } from '../config/redis-topology';

/** The logger context of every daily-limit line (the stores, their fallback, the checks of Redis). */
export const DAILY_LIMIT_CONTEXT = 'DailyLimit';

/** What a storage answers for one hit (the throttler's record type, without importing from dist/). */
export type DailyLimitRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Where the daily counters are (GET /health shows it). */
export interface DailyLimitState {
  /** The configured store (RATE_LIMIT_STORE). */
  store: 'memory' | 'redis';
  /** With Redis: one server (REDIS_URL), a primary found by Sentinel, or a Cluster. */
  topology?: RedisTopology;
  /** Where this instance counts right now: Redis, or its own memory while Redis is unavailable. */
  counting: 'memory' | 'redis';
  /** Whether every instance sees the same counts (only while counting in Redis, for every client). */
  shared: boolean;
  /** When the Redis store last changed where it counts (ISO 8601 UTC). */
  since?: string;
  /**
   * With Redis: the `maxmemory-policy` that can evict counters, when a primary has one (accepted
   * with REDIS_ALLOW_EVICTION=true, or refused: then the instance counts in memory).
   */
  evictionPolicy?: string;
  /**
   * With Redis: this instance's clock minus the Redis server's, in seconds, when it is past
   * REDIS_CLOCK_OFFSET_WARN_MS (around midnight, the instance counts in another day than the others).
   */
  clockOffsetSeconds?: number;
}

/**
 * The token of the daily counters: a ThrottlerStorage whose window is the UTC calendar day, whatever
 * `ttl` the throttler passes. Times in the record are seconds to the next 00:00 UTC
 * (`timeToExpire`, and `timeToBlockExpire` once over `limit`).
 * Tests replace it with `overrideProvider(DailyLimitStorage)`. A store's own failure never rejects
 * a hit: a request must not get a 5xx because a counter is unavailable.
 */
export abstract class DailyLimitStorage implements ThrottlerStorage {
  /**
   * Counts one hit for `key` today. A storage that can answer at once returns the record itself,
   * sparing the hot path a promise; one that asks a server returns a promise.
   */
  abstract hit(key: string, limit: number): DailyLimitRecord | Promise<DailyLimitRecord>;

  /** The ThrottlerStorage contract; `ttl` and `blockDuration` are ignored (the window is the day). */
  increment(
    key: string,
    _ttl: number,
    limit: number,
    _blockDuration?: number,
    _throttlerName?: string,
  ): Promise<DailyLimitRecord> {
    return Promise.resolve(this.hit(key, limit));
  }

  /**
   * A refusal known at once: when this instance already counts `limit` or more hits for `key`
   * today, counts this one and answers its (blocked) record without waiting on anything; otherwise
   * undefined, and the request is counted by `hit`. Lets a client over its limit be refused before
   * its body is read (DailyLimitPolicy's refuseEarly). Counts never fall within a day, so a refusal
   * seen here is final; a store that cannot tell at once keeps this default.
   */
  refuseAtOnce(_key: string, _limit: number): DailyLimitRecord | undefined {
    return undefined;
  }

  /** Where this store counts now (GET /health). */
  abstract state(): DailyLimitState;

  /**
   * This instance's clock minus a clock every instance shares (the Redis server's), in ms, as last
   * measured; undefined when there is none to compare with (the memory store) or not yet measured.
   */
  clockOffset(): number | undefined {
    return undefined;
  }
}

/** The record for the `hits`-th hit of a day, `resetSeconds` before its end. */
export function dailyRecord(hits: number, limit: number, resetSeconds: number): DailyLimitRecord {
  const isBlocked = hits > limit;
  return {
    totalHits: hits,
    timeToExpire: resetSeconds,
    isBlocked,
    timeToBlockExpire: isBlocked ? resetSeconds : 0,
  };
}
