import type { LoggerService } from '@nestjs/common';
import type { Clock } from '../../common/clock';
import type { DailyLimitState } from '../daily-limit.storage';

/**
 * Where the Redis store counts: `sharing`, every client in Redis; `partly` (a Cluster only), the
 * clients of a slot that failed in this instance's memory, the others in Redis; `alone`, every
 * client in memory (Redis unreachable, too slow or refused, or not answered yet).
 */
type CountingMode = 'sharing' | 'partly' | 'alone';

/**
 * The Redis store's counting mode and its changes, each logged once. RedisRecovery decides when
 * to change it; a change back to sharing is refused when a failure came after the catch-up that
 * asks for it began (`generation`), or once the store is closed.
 */
export class RedisCountingMode {
  private mode: CountingMode = 'alone';
  /**
   * When the store last began or stopped sharing every client (/health's `since`). Partly to alone
   * keeps it: the store has not shared every client since.
   */
  private since: Date;
  /** Bumped on every failure, so a catch-up that a failure overtook does not share again. */
  private failures = 0;
  /** Closing (shutdown, or start-up refused): the mode no longer changes. */
  private closed = false;

  constructor(
    /** Where it counts, for logs. */
    private readonly address: string,
    private readonly clock: Clock,
    private readonly logger: LoggerService,
  ) {
    this.since = clock.now();
  }

  /** Whether hits go to Redis (partly: the clients of a failed slot are still counted alone). */
  get inRedis(): boolean {
    return this.mode !== 'alone';
  }

  /** Whether every client is counted in Redis. */
  get sharing(): boolean {
    return this.mode === 'sharing';
  }

  /** The failures so far: a catch-up takes it when it begins, and hands it to `toSharing`. */
  get generation(): number {
    return this.failures;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  state(): Pick<DailyLimitState, 'counting' | 'shared' | 'since'> {
    return {
      counting: this.inRedis ? 'redis' : 'memory',
      shared: this.sharing,
      since: this.since.toISOString(),
    };
  }

  close(): void {
    this.closed = true;
  }

  /** A failure of every client's Redis; answers whether the store just began counting alone. */
  toAlone(reason: string): boolean {
    this.failures += 1;
    if (!this.inRedis || this.closed) return false;
    if (this.sharing) this.since = this.clock.now();
    this.mode = 'alone';
    this.logger.warn(
      `Redis at ${this.address} unavailable (${reason}): counting in this instance's memory until it is back`,
    );
    return true;
  }

  /** A failure of one Cluster slot while the Cluster is up: its clients are counted alone. */
  toPartly(reason: string): void {
    this.failures += 1;
    if (!this.sharing || this.closed) return;
    this.mode = 'partly';
    this.since = this.clock.now();
    this.logger.warn(
      `Redis at ${this.address} unavailable for some clients (${reason}): counting them in this instance's memory until their slots answer`,
    );
  }

  /**
   * Every client in Redis again, after a catch-up begun at `generation`, logging `line`; answers
   * whether it changed (not when a failure came since, once closed, or when already sharing).
   */
  toSharing(generation: number, line: string): boolean {
    if (generation !== this.failures || this.closed || this.sharing) return false;
    this.mode = 'sharing';
    this.since = this.clock.now();
    this.logger.log(line);
    return true;
  }
}
