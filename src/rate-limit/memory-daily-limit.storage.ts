import { Logger, type LoggerService } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DEFAULT_MAX_TRACKED_CLIENTS, DEFAULT_OVERFLOW_SKETCH_MB } from '../config/environment';
import { errorText } from '../common/error-text';
import { CountMinSketch } from './count-min-sketch';
import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from './daily-limit.storage';
import { CountedInstant, DayRollover, secondsUntilReset, utcDayNumber } from './daily-window';

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
 * Today's counters, for a single instance. No timers: the first hit of a new UTC day drops
 * yesterday's counts whole. Counting is synchronous, so a burst of concurrent requests can never
 * pass more than `limit`. The first `maxClients` clients of a day are counted exactly in a Map;
 * past it, new clients are counted in a count-min sketch of fixed memory, each on its own key and
 * never below its true count, so nobody passes the limit and memory stays bounded. Time only moves
 * forward: a clock that steps back behind the day already counted in goes on counting in that day
 * until it catches up (docs/contract.md, "Daily limit").
 */
export class MemoryDailyLimitStorage extends DailyLimitStorage {
  private counts = new Map<string, number>();
  /** Today's counts of the clients past the Map, once it is full. */
  private overflow?: CountMinSketch;
  private readonly days = new DayRollover(() => {
    this.counts = new Map();
    this.overflow = undefined;
  });

  constructor(
    private readonly clock: Clock,
    /** Clients counted exactly a day, before new ones go to the sketch (MAX_TRACKED_CLIENTS). */
    readonly maxClients = DEFAULT_MAX_TRACKED_CLIENTS,
    private readonly logger: LoggerService = new Logger('DailyLimit'),
    /** The sketch's memory in MiB (OVERFLOW_SKETCH_MB). */
    private readonly sketchMegabytes = DEFAULT_OVERFLOW_SKETCH_MB,
  ) {
    super();
  }

  /**
   * Counts one hit now, in the latest day counted, and answers at once. `atLeast` raises the count
   * to a total known from elsewhere (the Redis store passes the shared count), so that if this store
   * has to take over, it goes on from the last count this instance saw rather than from zero.
   */
  hit(key: string, limit: number, atLeast = 0, now = this.clock.now().getTime()): DailyLimitRecord {
    const reset = secondsUntilReset(now, this.days.reach(now));
    if (!this.inMap(key))
      return dailyRecord(this.sketch(limit).hit(key, limit, atLeast), limit, reset);
    const previous = this.counts.get(key);
    const hits = Math.max((previous ?? 0) + 1, atLeast);
    this.counts.set(previous === undefined ? flat(key) : key, hits);
    return dailyRecord(hits, limit, reset);
  }

  /**
   * Sets `key`'s count to `count` exactly and answers this hit: the Redis store follows a shared
   * count that went down (an operator reset the client). For a key tracked in the Map (`tracks`).
   */
  follow(
    key: string,
    limit: number,
    count: number,
    now = this.clock.now().getTime(),
  ): DailyLimitRecord {
    this.hit(key, limit, count, now);
    this.counts.set(key, count);
    return dailyRecord(count, limit, secondsUntilReset(now, this.days.day));
  }

  /** The count of `key` in the Map for the day counted in (0 when it has none). */
  count(key: string, now = this.clock.now().getTime()): number {
    return utcDayNumber(now) > this.days.day ? 0 : (this.counts.get(key) ?? 0);
  }

  override refuseAtOnce(
    key: string,
    limit: number,
    now = this.clock.now().getTime(),
  ): DailyLimitRecord | undefined {
    if (utcDayNumber(now) > this.days.day) return undefined;
    const hits = this.inMap(key) ? this.counts.get(key) : this.overflow?.count(key, limit);
    if (hits === undefined || hits < limit) return undefined;
    return this.hit(key, limit, 0, now);
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

  /**
   * `now` and the day it counts in: its own, or the latest day counted when the clock stands
   * behind it (time only moves forward). The one decision of the day for a shared store too: its
   * keys, its expiries and its catch-up follow it, so that a clock stepping back never reaches an
   * earlier day's key (an expired one is a fresh budget).
   */
  countedAt(now = this.clock.now().getTime()): CountedInstant {
    return { now, day: this.days.dayOf(now) };
  }

  /** The latest day counted in (a shared count that comes back for an earlier day is late). */
  get latestDay(): number {
    return this.days.day;
  }

  /** Whether `key` is counted exactly, in the Map, on the day counted in (else in the sketch). */
  tracks(key: string, now = this.clock.now().getTime()): boolean {
    return utcDayNumber(now) > this.days.day || this.inMap(key);
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
