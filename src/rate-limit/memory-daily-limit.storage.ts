import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from './daily-limit.storage';
import { secondsUntilReset, utcDayNumber } from './daily-window';

/**
 * A copy of `key` in one piece. IPv6 keys are built by concatenation ('2001:db8:1:2::' + '/64'),
 * which V8 keeps as a rope of parts; stored flat, a /64 client costs ~108 bytes instead of ~166
 * (bench: npm run bench:memory). Done once per client and day, when its key is first stored.
 */
const flat = (key: string): string => (key + ' ').slice(0, -1);

/**
 * Today's counters in one Map, for a single instance. No timers: the first hit of a new UTC day
 * drops yesterday's Map whole, so memory holds only the clients seen today. Counting is synchronous,
 * so a burst of concurrent requests can never pass more than `limit`.
 */
@Injectable()
export class MemoryDailyLimitStorage extends DailyLimitStorage {
  private day = Number.NaN;
  private counts = new Map<string, number>();

  constructor(private readonly clock: Clock) {
    super();
  }

  /**
   * Counts one hit now and answers at once. `atLeast` raises the count to a total known from
   * elsewhere (the Redis store passes the shared count), so that if this Map has to take over, it
   * goes on from the last count this instance saw rather than from zero.
   */
  hit(key: string, limit: number, atLeast = 0, now = this.clock.now().getTime()): DailyLimitRecord {
    const day = utcDayNumber(now);
    if (day !== this.day) {
      this.day = day;
      this.counts = new Map();
    }
    const previous = this.counts.get(key);
    const hits = Math.max((previous ?? 0) + 1, atLeast);
    this.counts.set(previous === undefined ? flat(key) : key, hits);
    return dailyRecord(hits, limit, secondsUntilReset(now));
  }

  override refuseAtOnce(
    key: string,
    limit: number,
    now = this.clock.now().getTime(),
  ): DailyLimitRecord | undefined {
    const hits = this.counts.get(key);
    if (hits === undefined || hits < limit || utcDayNumber(now) !== this.day) return undefined;
    this.counts.set(key, hits + 1);
    return dailyRecord(hits + 1, limit, secondsUntilReset(now));
  }

  state(): DailyLimitState {
    return { store: 'memory', counting: 'memory', shared: false };
  }

  /** How many clients are counted today. */
  get trackedClients(): number {
    return this.counts.size;
  }
}
