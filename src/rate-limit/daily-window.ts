/** The daily window: a fixed UTC calendar day, 00:00:00.000 to 23:59:59.999 UTC. */
export const DAY_MS = 86_400_000;
export const DAY_SECONDS = 86_400;

/** Days since 1970-01-01 UTC: the same number for every instant of one UTC day. */
export const utcDayNumber = (epochMs: number): number => Math.floor(epochMs / DAY_MS);

/**
 * Seconds from `epochMs` until the end of UTC day `day` (by default its own), rounded up: from 1
 * (the last second) to 86,400 (at midnight); more when `day` is later than `epochMs`'s (a clock
 * that stepped back behind the day a store counts in).
 */
export const secondsUntilReset = (epochMs: number, day = utcDayNumber(epochMs)): number =>
  Math.ceil(((day + 1) * DAY_MS - epochMs) / 1000);

/** The UTC date as YYYY-MM-DD, for keys that must name their day (shared stores). */
export const utcDateKey = (epochMs: number): string =>
  new Date(utcDayNumber(epochMs) * DAY_MS).toISOString().slice(0, 10);

/**
 * A clock reading as the daily limit counts it. Which day a request counts in and how long until
 * that day ends are two things once the clock stands behind the latest day counted (it stepped
 * back): the day is the later one, the seconds are measured from the clock as it reads.
 */
export interface CountedInstant {
  /** The clock's reading (ms since the epoch): seconds to the reset and to a key's expiry. */
  readonly now: number;
  /** The UTC day counted in: now's own, or the later day already counted in. */
  readonly day: number;
}

/**
 * The UTC day a per-client store counts in, and its rollover: the first instant of a later day
 * calls `startDay` (the store drops yesterday's maps whole, no timers). Time only moves forward:
 * an instant of an earlier day (a clock that stepped back) leaves the day as it is.
 */
export class DayRollover {
  private latest = -Infinity;

  constructor(private readonly startDay: () => void) {}

  /** The day counted in (-Infinity before the first `reach`). */
  get day(): number {
    return this.latest;
  }

  /** The day an instant counts in, without moving to it: its own, or the later one counted in. */
  dayOf(now: number): number {
    return Math.max(utcDayNumber(now), this.latest);
  }

  /** Moves to the day of `now` if it is later, starting it afresh; answers the day counted in. */
  reach(now: number): number {
    return this.reachDay(utcDayNumber(now));
  }

  /** `reach` for a day number (a day already decided by `dayOf`). */
  reachDay(day: number): number {
    if (day > this.latest) {
      this.latest = day;
      this.startDay();
    }
    return this.latest;
  }

  /** `reachDay`, then whether `day` is the day counted in (false for an earlier day: a late reply). */
  enter(day: number): boolean {
    return this.reachDay(day) === day;
  }

  /** Whether `day` is the day counted in (what is kept is that day's, nothing of another). */
  isCounted(day: number): boolean {
    return day === this.latest;
  }

  /** Whether `day` is earlier than the day counted in: a later day has started since. */
  isPast(day: number): boolean {
    return day < this.latest;
  }

  /**
   * Whether `now` is on a later day than the one counted in, not reached yet: what is kept is the
   * day before's, and counts for `now` start from zero.
   */
  isAhead(now: number): boolean {
    return utcDayNumber(now) > this.latest;
  }
}

/** Whether UTC day `day` is the one `at` counts in (hits counted alone before midnight are not). */
export const isDayOf = (day: number, at: CountedInstant): boolean => day === at.day;
