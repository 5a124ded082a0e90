import { ThrottlerStorage } from '@nestjs/throttler';

/** What a storage answers for one hit (the throttler's record type, without importing from dist/). */
export type DailyLimitRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The token of the daily counters. A ThrottlerStorage whose window is the UTC calendar day, whatever
 * `ttl` the throttler passes: `increment()` counts one hit for `key` today and answers, in seconds,
 * the time to the next 00:00 UTC (`timeToExpire`, and `timeToBlockExpire` once over `limit`).
 * Tests replace it with `overrideProvider(DailyLimitStorage)`.
 */
export abstract class DailyLimitStorage implements ThrottlerStorage {
  abstract increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<DailyLimitRecord>;
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
