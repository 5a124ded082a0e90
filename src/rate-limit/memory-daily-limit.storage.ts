import { Logger, type LoggerService } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DEFAULT_MAX_TRACKED_CLIENTS, DEFAULT_OVERFLOW_SKETCH_MB } from '../config/environment';
import { errorText } from '../common/error-text';
import { CountMinSketch } from './count-min-sketch';
import {
  DAILY_LIMIT_CONTEXT,
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from './daily-limit.storage';
import { CountedInstant, DayRollover, secondsUntilReset } from './daily-window';

/**
 * A copy of `key` in one piece. IPv6 keys are built by concatenation ('2001:db8:1:2::' + '/64'),
 * which V8 keeps as a rope of parts; stored flat, a /64 client costs ~108 bytes instead of ~166
 * (bench: npm run bench:memory). Done once per client and day, when its key is first stored.
 */
const flat = (key: string): string => (key + ' ').slice(0, -1);

/**
 * Rows of the overflow sketch: near the fewest refusals of honest clients for 10 million keys in
 * 128 MiB, and a hit costs one pass over the key and 8 cells (bench: npm run bench:sketch).
 */
const SKETCH_ROWS = 8;

/**
 * What the Redis store asks of this instance's own counts: the day a hit counts in, its fallback
 * while Redis does not answer, and a copy of the shared counts that a fallback goes on from (and
 * that a replaced key starts again from). `now` is the clock's reading the Redis store took for
 * the hit, in ms since the epoch.
 */
export interface DailyLimitFallback {
  /** Clients counted exactly a day (MAX_TRACKED_CLIENTS); the Redis store remembers as many. */
  readonly maxClients: number;
  /** `now` and the day it counts in: its own, or the latest day counted (time only moves forward). */
  countedAt(now: number): CountedInstant;
  /** One hit counted here alone. */
  hit(key: string, limit: number, now: number): DailyLimitRecord;
  /** One hit, the count raised to at least `total` (a shared count), never lowered. */
  raiseTo(key: string, limit: number, total: number, now: number): DailyLimitRecord;
  /** One hit, the count set to `total`: a shared count that went down (an operator's reset). */
  followDown(key: string, limit: number, total: number, now: number): DailyLimitRecord;
  /** The count of `key` in the Map for the day counted in (0 when it has none). */
  count(key: string, now: number): number;
  /** Whether `key` is counted exactly, in the Map (else in the sketch, which never falls). */
  tracks(key: string, now: number): boolean;
  /** DailyLimitStorage's `refuseAtOnce`, at `now`. */
  refuseAtOnce(key: string, limit: number, now: number): DailyLimitRecord | undefined;
  /** Whether UTC day `day` is over here: a later day is counted in (a shared count for it is late). */
  isPast(day: number): boolean;
}

/**
 * Today's counters, for a single instance. No timers: the first hit of a new UTC day drops
 * yesterday's counts whole. Counting is synchronous, so a burst of concurrent requests can never
 * pass more than `limit`. The first `maxClients` clients of a day are counted exactly in a Map;
 * past it, new clients are counted in a count-min sketch of fixed memory, each on its own key and
 * never below its true count, so nobody passes the limit and memory stays bounded. Time only moves
 * forward: a clock that steps back behind the day already counted in goes on counting in that day
 * until it catches up (docs/contract.md, "Daily limit"). With Redis, the same counts are the Redis
 * store's `fallback`.
 */
export class MemoryDailyLimitStorage extends DailyLimitStorage {
  private counts = new Map<string, number>();
  /** Today's counts of the clients past the Map, once it is full. */
  private overflow?: CountMinSketch;
  private readonly days = new DayRollover(() => {
    this.counts = new Map();
    this.overflow = undefined;
  });
  /** These counts as the Redis store's fallback: a view, not a copy. */
  readonly fallback: DailyLimitFallback;

  constructor(
    private readonly clock: Clock,
    /** Clients counted exactly a day, before new ones go to the sketch (MAX_TRACKED_CLIENTS). */
    private readonly maxClients = DEFAULT_MAX_TRACKED_CLIENTS,
    private readonly logger: LoggerService = new Logger(DAILY_LIMIT_CONTEXT),
    /** The sketch's memory in MiB (OVERFLOW_SKETCH_MB). */
    private readonly sketchMegabytes = DEFAULT_OVERFLOW_SKETCH_MB,
  ) {
    super();
    this.fallback = this.asFallback();
  }

  /** Counts one hit now, in the latest day counted, and answers at once. */
  hit(key: string, limit: number): DailyLimitRecord {
    return this.add(key, limit, 0, this.clock.now().getTime());
  }

  override refuseAtOnce(key: string, limit: number): DailyLimitRecord | undefined {
    return this.refuseAt(key, limit, this.clock.now().getTime());
  }

  state(): DailyLimitState {
    return { store: 'memory', counting: 'memory', shared: false };
  }

  /** Clients counted exactly today (in the Map). */
  get trackedClients(): number {
    return this.counts.size;
  }

  /** The share of the overflow sketch's cells at the limit today (0 until the Map fills). */
  get overflowSaturation(): number {
    return this.overflow?.saturation ?? 0;
  }

  private asFallback(): DailyLimitFallback {
    return {
      maxClients: this.maxClients,
      // The one decision of the day for the Redis store too: its keys, expiries and catch-up
      // follow it, so a clock stepping back never reaches an earlier day's key (a fresh budget).
      countedAt: (now) => ({ now, day: this.days.dayOf(now) }),
      hit: (key, limit, now) => this.add(key, limit, 0, now),
      raiseTo: (key, limit, total, now) => this.add(key, limit, total, now),
      followDown: (key, limit, total, now) => this.followDown(key, limit, total, now),
      count: (key, now) => (this.days.isAhead(now) ? 0 : (this.counts.get(key) ?? 0)),
      tracks: (key, now) => this.days.isAhead(now) || this.inMap(key),
      refuseAtOnce: (key, limit, now) => this.refuseAt(key, limit, now),
      isPast: (day) => this.days.isPast(day),
    };
  }

  /**
   * Counts one hit at `now`, in the latest day counted. `atLeast` raises the count to a total known
   * from elsewhere (the Redis store's shared count), so that if this store has to take over, it
   * goes on from the last count this instance saw rather than from zero.
   */
  private add(key: string, limit: number, atLeast: number, now: number): DailyLimitRecord {
    const reset = secondsUntilReset(now, this.days.reach(now));
    if (!this.inMap(key))
      return dailyRecord(this.sketch(limit).hit(key, limit, atLeast), limit, reset);
    const previous = this.counts.get(key);
    const hits = Math.max((previous ?? 0) + 1, atLeast);
    this.counts.set(previous === undefined ? flat(key) : key, hits);
    return dailyRecord(hits, limit, reset);
  }

  /** Sets `key`'s count to `count` exactly and answers this hit. For a key in the Map. */
  private followDown(key: string, limit: number, count: number, now: number): DailyLimitRecord {
    this.add(key, limit, count, now);
    this.counts.set(key, count);
    return dailyRecord(count, limit, secondsUntilReset(now, this.days.day));
  }

  private refuseAt(key: string, limit: number, now: number): DailyLimitRecord | undefined {
    if (this.days.isAhead(now)) return undefined;
    const hits = this.inMap(key) ? this.counts.get(key) : this.overflow?.count(key, limit);
    if (hits === undefined || hits < limit) return undefined;
    return this.add(key, limit, 0, now);
  }

  private inMap(key: string): boolean {
    return this.counts.size < this.maxClients || this.counts.has(key);
  }

  /** The day's sketch, made (and logged) on the first client past the Map. */
  private sketch(limit: number): CountMinSketch {
    if (this.overflow) return this.overflow;
    this.logger.warn(
      `${this.maxClients} clients counted today (MAX_TRACKED_CLIENTS): new clients are now counted in a ${this.sketchMegabytes} MiB sketch (OVERFLOW_SKETCH_MB), each held to its limit, until 00:00 UTC`,
    );
    try {
      this.overflow = new CountMinSketch(this.sketchMegabytes * 2 ** 20, SKETCH_ROWS, limit);
    } catch (error) {
      // No memory for it: the smallest sketch still holds every client to its limit, with more
      // early refusals; said at error, since OVERFLOW_SKETCH_MB does not fit this process.
      this.logger.error(
        `No memory for a ${this.sketchMegabytes} MiB sketch (${errorText(error)}): counting the clients past MAX_TRACKED_CLIENTS in a 1 MiB one until 00:00 UTC`,
      );
      this.overflow = new CountMinSketch(2 ** 20, SKETCH_ROWS, limit);
    }
    return this.overflow;
  }
}
