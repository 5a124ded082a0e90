import type { LoggerService } from '@nestjs/common';
import type { Clock } from '../../common/clock';
import type { DailyLimitState } from '../daily-limit.storage';

/** `partly` (a Cluster only): a failed slot's clients in memory, the others in Redis. */
type CountingMode = 'sharing' | 'partly' | 'alone';

/** Each change is logged once; once closed, the mode no longer changes. */
export class RedisCountingMode {
  private mode: CountingMode = 'alone';
  /** /health's `since`. Partly to alone keeps it: not every client was shared since. */
  private since: Date;
  /** Bumped on every failure, so a catch-up that a failure overtook does not share again. */
  private failures = 0;
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly clock: Clock,
    private readonly logger: LoggerService,
  ) {
    this.since = clock.now();
  }

  get inRedis(): boolean {
    return this.mode !== 'alone';
  }

  get sharing(): boolean {
    return this.mode === 'sharing';
  }

  /** Taken when a catch-up begins, handed back to `toSharing`. */
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

  toPartly(reason: string): void {
    this.failures += 1;
    if (!this.sharing || this.closed) return;
    this.mode = 'partly';
    this.since = this.clock.now();
    this.logger.warn(
      `Redis at ${this.address} unavailable for some clients (${reason}): counting them in this instance's memory until their slots answer`,
    );
  }

  toSharing(generation: number, line: string): boolean {
    if (generation !== this.failures || this.closed || this.sharing) return false;
    this.mode = 'sharing';
    this.since = this.clock.now();
    this.logger.log(line);
    return true;
  }
}
