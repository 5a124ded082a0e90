import { Logger, type LoggerService } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import { Clock } from '../common/clock';
import { DEFAULT_MAX_TRACKED_CLIENTS } from '../config/environment';
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
 * The wider budget a new client shares once the store is full: its IPv4 /16 or IPv6 /32 (keys are
 * an IPv4 address or an IPv6 /64, see clientKey).
 */
function prefixKey(key: string): string {
  if (key.includes(':')) return `overflow:${normalizeIp(key.replace(/\/\d+$/, ''), 32)}`;
  const [a, b] = key.split('.');
  return b === undefined ? OVERFLOW_KEY : `overflow:${a}.${b}.0.0/16`;
}

/** Once the prefixes fill their reserve too: one budget for every further new client. */
const OVERFLOW_KEY = 'overflow:*';

/**
 * Today's counters in one Map, for a single instance. No timers: the first hit of a new UTC day
 * drops yesterday's Map whole, so memory holds only the clients seen today. Counting is
 * synchronous, so a burst of concurrent requests can never pass more than `limit`. The Map is
 * bounded: past `maxClients`, a new client is counted under a wider prefix it shares with its
 * neighbours, so new keys can neither grow memory without end nor dodge the limit, and clients
 * already counted keep their own budgets. The first widening of a day is logged once.
 */
export class MemoryDailyLimitStorage extends DailyLimitStorage {
  private day = Number.NaN;
  private counts = new Map<string, number>();
  /** Keys of today's Map that stand for several clients (counted after it filled). */
  private widened = 0;

  constructor(
    private readonly clock: Clock,
    /** Clients tracked a day before new ones share a wider prefix's budget (MAX_TRACKED_CLIENTS). */
    readonly maxClients = DEFAULT_MAX_TRACKED_CLIENTS,
    private readonly logger: LoggerService = new Logger('DailyLimit'),
  ) {
    super();
  }

  /**
   * Counts one hit now and answers at once. `atLeast` raises the count to a total known from
   * elsewhere (the Redis store passes the shared count), so that if this Map has to take over, it
   * goes on from the last count this instance saw rather than from zero.
   */
  hit(key: string, limit: number, atLeast = 0, now = this.clock.now().getTime()): DailyLimitRecord {
    const day = utcDayNumber(now);
    // A late reply for yesterday (the Redis store awaits its count) must not reset today.
    if (day < this.day) return dailyRecord(Math.max(atLeast, 1), limit, secondsUntilReset(now));
    if (day !== this.day) {
      this.day = day;
      this.counts = new Map();
      this.widened = 0;
    }
    const counted = this.keyFor(key);
    const previous = this.counts.get(counted);
    if (previous === undefined && counted !== key) this.widen();
    const hits = Math.max((previous ?? 0) + 1, atLeast);
    this.counts.set(previous === undefined ? flat(counted) : counted, hits);
    return dailyRecord(hits, limit, secondsUntilReset(now));
  }

  /**
   * Sets `key`'s count to `count` exactly and answers this hit: the Redis store follows a shared
   * count that went down (an operator reset the client). For a key tracked on its own (`tracks`).
   */
  follow(
    key: string,
    limit: number,
    count: number,
    now = this.clock.now().getTime(),
  ): DailyLimitRecord {
    const record = this.hit(key, limit, count, now);
    if (utcDayNumber(now) !== this.day) return record;
    this.counts.set(key, count);
    return dailyRecord(count, limit, secondsUntilReset(now));
  }

  /** Today's count of `key` under its own key (0 when it has none). */
  count(key: string, now = this.clock.now().getTime()): number {
    return utcDayNumber(now) === this.day ? (this.counts.get(key) ?? 0) : 0;
  }

  override refuseAtOnce(
    key: string,
    limit: number,
    now = this.clock.now().getTime(),
  ): DailyLimitRecord | undefined {
    if (utcDayNumber(now) !== this.day) return undefined;
    const counted = this.keyFor(key);
    const hits = this.counts.get(counted);
    if (hits === undefined || hits < limit) return undefined;
    this.counts.set(counted, hits + 1);
    return dailyRecord(hits + 1, limit, secondsUntilReset(now));
  }

  state(): DailyLimitState {
    return { store: 'memory', counting: 'memory', shared: false };
  }

  /** Keys counted today: clients, and the wider prefixes counted once the Map was full. */
  get trackedClients(): number {
    return this.counts.size;
  }

  /** Keys counted today that stand for several clients (0 unless the Map filled). */
  get widenedKeys(): number {
    return this.widened;
  }

  /** Whether `key` is counted under a key of its own today (else under a wider one). */
  tracks(key: string, now = this.clock.now().getTime()): boolean {
    return utcDayNumber(now) !== this.day || this.keyFor(key) === key;
  }

  /** The key a client is counted under today: its own, unless it is new and the Map is full. */
  private keyFor(key: string): string {
    if (this.counts.size < this.maxClients || this.counts.has(key)) return key;
    const prefix = prefixKey(key);
    if (this.counts.has(prefix)) return prefix;
    const reserve = Math.max(16, Math.ceil(this.maxClients / 10));
    return this.counts.size >= this.maxClients + reserve ? OVERFLOW_KEY : prefix;
  }

  /** A wider key is stored: counted, and the day's first logged. */
  private widen(): void {
    if (this.widened === 0) {
      this.logger.warn(
        `${this.maxClients} clients counted today (MAX_TRACKED_CLIENTS): new clients now share the budget of their IPv4 /16 or IPv6 /32 until 00:00 UTC`,
      );
    }
    this.widened += 1;
  }
}
