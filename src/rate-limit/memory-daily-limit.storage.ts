import { Logger, type LoggerService } from '@nestjs/common';
import { Clock } from '../common/clock';
import { errorText } from '../common/error-text';
import { DEFAULTS } from '../config/environment';
import { CountMinSketch } from './count-min-sketch';
import {
  CountedInstant,
  DAILY_LIMIT_CONTEXT,
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
  DayRollover,
  secondsUntilReset,
  utcDayNumber,
} from './daily-limit.storage';

/**
 * V8 keeps concatenated keys ('2001:db8:1:2::' + '/64') as ropes; flat, a /64 client costs ~108
 * bytes instead of ~166 (npm run bench:memory). Done once per client and day.
 */
const flat = (key: string): string => (key + ' ').slice(0, -1);

/** Near the fewest honest refusals for 10 million keys in 128 MiB (npm run bench:sketch). */
const SKETCH_ROWS = 8;

/**
 * Today's counters for one instance, counted synchronously so a burst never passes `limit`. The
 * first `maxClients` clients a day go in a Map, later ones in a fixed-memory sketch that never
 * counts low. No timers: a new UTC day's first hit drops the old counts whole.
 */
export class MemoryDailyLimitStorage extends DailyLimitStorage {
  private counts = new Map<string, number>();
  private overflow?: CountMinSketch;
  private readonly days = new DayRollover(() => {
    this.counts = new Map();
    this.overflow = undefined;
  });
  /** These counts as the Redis store uses them, a view (not a copy); `now` is its clock's (ms). */
  readonly fallback;

  constructor(
    private readonly clock: Clock,
    /** Clients counted exactly a day, before new ones go to the sketch (MAX_TRACKED_CLIENTS). */
    private readonly maxClients = DEFAULTS.MAX_TRACKED_CLIENTS,
    /** The sketch's memory in MiB (OVERFLOW_SKETCH_MB). */
    private readonly sketchMegabytes = DEFAULTS.OVERFLOW_SKETCH_MB,
    private readonly logger: LoggerService = new Logger(DAILY_LIMIT_CONTEXT),
  ) {
    super();
    this.fallback = {
      /** The Redis store remembers as many clients a day. */
      maxClients: this.maxClients,
      // The one decision of the day for the Redis store too: its keys, expiries and catch-up follow
      // it, so a clock stepping back never reaches an earlier day's key (a fresh budget).
      countedAt: (now: number): CountedInstant => ({ now, day: this.days.dayOf(now) }),
      hit: (key: string, limit: number, now: number) => this.add(key, limit, 0, now),
      /**
       * One hit, after Redis counted `total` for `at.day`: the count raised to it (never lowered),
       * or set to it on `reset` (an operator's reset). Answers the shared count, or the Map's.
       */
      follow: (key: string, limit: number, total: number, reset: boolean, at: CountedInstant) => {
        // A reply for a day already past: answered as is, leaving the new day's counts alone.
        if (this.days.isPast(at.day))
          return dailyRecord(total, limit, secondsUntilReset(at.now, at.day));
        const exact = this.days.isAhead(at.now) || this.inMap(key);
        // Past the Map, the sketch (it never falls) is raised so a fallback resumes here, not at 0.
        const record = this.add(key, limit, total, at.now);
        if (exact && !reset) return record;
        if (exact) this.counts.set(key, total);
        return dailyRecord(total, limit, record.timeToExpire);
      },
      count: (key: string, now: number) =>
        this.days.isAhead(now) ? 0 : (this.counts.get(key) ?? 0),
      refuseAtOnce: (key: string, limit: number, now: number) => this.refuseAtOnce(key, limit, now),
    };
  }

  hit(key: string, limit: number): DailyLimitRecord {
    return this.add(key, limit, 0, this.clock.now().getTime());
  }

  override refuseAtOnce(key: string, limit: number, now = this.clock.now().getTime()) {
    if (this.days.isAhead(now)) return undefined;
    const hits = this.inMap(key) ? this.counts.get(key) : this.overflow?.count(key, limit);
    if (hits === undefined || hits < limit) return undefined;
    return this.add(key, limit, 0, now);
  }

  state(): DailyLimitState {
    return { store: 'memory', counting: 'memory', shared: false };
  }

  get trackedClients(): number {
    return this.counts.size;
  }

  get overflowSaturation(): number {
    return this.overflow?.saturation ?? 0;
  }

  /** `atLeast`: the shared count, so a fallback goes on from it rather than from zero. */
  private add(key: string, limit: number, atLeast: number, now: number): DailyLimitRecord {
    const reset = secondsUntilReset(now, this.days.enter(utcDayNumber(now)));
    if (!this.inMap(key)) {
      this.overflow ??= this.newSketch(limit);
      return dailyRecord(this.overflow.hit(key, limit, atLeast), limit, reset);
    }
    const previous = this.counts.get(key);
    const hits = Math.max((previous ?? 0) + 1, atLeast);
    this.counts.set(previous === undefined ? flat(key) : key, hits);
    return dailyRecord(hits, limit, reset);
  }

  private inMap(key: string): boolean {
    return this.counts.size < this.maxClients || this.counts.has(key);
  }

  /** The day's sketch for the clients past MAX_TRACKED_CLIENTS, made when the first one comes. */
  private newSketch(limit: number): CountMinSketch {
    this.logger.warn(
      `${this.maxClients} clients counted today (MAX_TRACKED_CLIENTS): new clients are now counted in a ${this.sketchMegabytes} MiB sketch (OVERFLOW_SKETCH_MB), each held to its limit, until 00:00 UTC`,
    );
    try {
      return new CountMinSketch(this.sketchMegabytes * 2 ** 20, SKETCH_ROWS, limit);
    } catch (error) {
      // No memory for it: the smallest sketch still holds every client to its limit, with more
      // early refusals; said at error, since OVERFLOW_SKETCH_MB does not fit this process.
      this.logger.error(
        `No memory for a ${this.sketchMegabytes} MiB sketch (${errorText(error)}): counting the clients past MAX_TRACKED_CLIENTS in a 1 MiB one until 00:00 UTC`,
      );
      return new CountMinSketch(2 ** 20, SKETCH_ROWS, limit);
    }
  }
}

export type DailyLimitFallback = MemoryDailyLimitStorage['fallback'];
