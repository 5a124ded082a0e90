import { ThrottlerStorage } from '@nestjs/throttler';

/** What a storage answers for one hit (the throttler's record type, without importing from dist/). */
export type DailyLimitRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Where the daily counters are (GET /health shows it). */
export interface DailyLimitState {
  /** The configured store (RATE_LIMIT_STORE). */
  store: 'memory' | 'redis';
  /** Where this instance counts right now: Redis, or its own memory while Redis is unavailable. */
  counting: 'memory' | 'redis';
  /** Whether every instance sees the same counts (only while counting in Redis). */
  shared: boolean;
  /** When the Redis store last changed where it counts (ISO 8601 UTC). */
  since?: string;
}

/**
 * The token of the daily counters. A ThrottlerStorage whose window is the UTC calendar day, whatever
 * `ttl` the throttler passes: `increment()` counts one hit for `key` today and answers, in seconds,
 * the time to the next 00:00 UTC (`timeToExpire`, and `timeToBlockExpire` once over `limit`).
 * Tests replace it with `overrideProvider(DailyLimitStorage)`. `increment()` never rejects for a
 * store's own failure: a request must not get a 5xx because a counter is unavailable.
 */
export abstract class DailyLimitStorage implements ThrottlerStorage {
  abstract increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<DailyLimitRecord>;

  abstract state(): DailyLimitState;
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
