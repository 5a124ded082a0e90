import { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisTopology } from '../config/redis-topology';

export const DAILY_LIMIT_CONTEXT = 'DailyLimit';

/** The throttler's record type, without importing from its dist/. */
export type DailyLimitRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Where the daily counters are (GET /health shows it). */
export interface DailyLimitState {
  /** The configured store (RATE_LIMIT_STORE). */
  store: 'memory' | 'redis';
  topology?: RedisTopology;
  /** Where this instance counts right now: Redis, or its own memory while Redis is unavailable. */
  counting: 'memory' | 'redis';
  /** Every instance sees the same counts: only while counting in Redis, for every client. */
  shared: boolean;
  /** When the Redis store last changed where it counts (ISO 8601 UTC). */
  since?: string;
  /** With Redis: an evicting `maxmemory-policy` (accepted, or refused: then counting in memory). */
  evictionPolicy?: string;
  /** This clock minus Redis's, in s, past REDIS_CLOCK_OFFSET_WARN_MS (days differ around 00:00). */
  clockOffsetSeconds?: number;
}

/**
 * The daily counters' token: a ThrottlerStorage whose window is the UTC day, whatever `ttl` says;
 * record times are seconds to the next 00:00 UTC. A store's own failure never rejects a hit: a
 * request must not get a 5xx because a counter is unavailable.
 */
export abstract class DailyLimitStorage implements ThrottlerStorage {
  /** The record itself when the store can answer at once, sparing the hot path a promise. */
  abstract hit(key: string, limit: number): DailyLimitRecord | Promise<DailyLimitRecord>;

  increment(key: string, _ttl: number, limit: number, ..._blockDurationAndName: unknown[]) {
    return Promise.resolve(this.hit(key, limit));
  }

  /**
   * A refusal known at once (this hit counted), so a client over its limit is refused before its
   * body is read (refuseEarly). Counts never fall within a day, so it is final.
   */
  refuseAtOnce(_key: string, _limit: number): DailyLimitRecord | undefined {
    return undefined;
  }

  abstract state(): DailyLimitState;

  /** This clock minus a shared one (Redis's), in ms; undefined without one or before measuring. */
  clockOffset(): number | undefined {
    return undefined;
  }
}

export function dailyRecord(hits: number, limit: number, resetSeconds: number): DailyLimitRecord {
  const isBlocked = hits > limit;
  return {
    totalHits: hits,
    timeToExpire: resetSeconds,
    isBlocked,
    timeToBlockExpire: isBlocked ? resetSeconds : 0,
  };
}

/** The daily window: a fixed UTC calendar day, 00:00:00.000 to 23:59:59.999 UTC. */
export const DAY_MS = 86_400_000;
export const DAY_SECONDS = 86_400;

/** Days since 1970-01-01 UTC: the same number for every instant of one UTC day. */
export const utcDayNumber = (epochMs: number): number => Math.floor(epochMs / DAY_MS);

/** Rounded up: 1 to 86,400, more when `day` is ahead of `epochMs`'s (a clock that stepped back). */
export const secondsUntilReset = (epochMs: number, day = utcDayNumber(epochMs)): number =>
  Math.ceil(((day + 1) * DAY_MS - epochMs) / 1000);

/** After a clock steps back, the day is the latest counted; seconds still follow the clock. */
export interface CountedInstant {
  readonly now: number;
  readonly day: number;
}

/**
 * The day a per-client store counts in: a later day's first instant calls `startDay` (no timers);
 * an earlier day's (a clock that stepped back) leaves it as it is.
 */
export class DayRollover {
  private latest = -Infinity;

  constructor(private readonly startDay: (day: number) => void) {}

  /** The day an instant counts in, without moving to it: its own, or the later one counted in. */
  dayOf(now: number): number {
    return Math.max(utcDayNumber(now), this.latest);
  }

  /** Moves on to `day` if it is later; answers the day counted in (a later one: a late reply). */
  enter(day: number): number {
    if (day > this.latest) {
      this.latest = day;
      this.startDay(day);
    }
    return this.latest;
  }

  isCounted(day: number): boolean {
    return day === this.latest;
  }

  isPast(day: number): boolean {
    return day < this.latest;
  }

  /** `now` is on a later day not reached yet: what is kept is the day before's. */
  isAhead(now: number): boolean {
    return utcDayNumber(now) > this.latest;
  }
}
