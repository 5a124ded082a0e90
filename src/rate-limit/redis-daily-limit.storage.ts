import { Logger, LoggerService, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type Redis from 'ioredis';
import { Clock } from '../common/clock';
import { DailyLimitRecord, DailyLimitState, DailyLimitStorage } from './daily-limit.storage';
import { secondsUntilReset, utcDateKey } from './daily-window';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import './redis-client';

/** Every key starts with this, then the UTC date, then the client: `depreciation:daily:2026-11-21:203.0.113.7`. */
export const REDIS_KEY_PREFIX = 'depreciation:daily';
/** Keys outlive their day by this much, so an instance whose clock lags a little still finds its count. */
export const EXPIRY_GRACE_SECONDS = 60;
/** After a failed command, requests count in memory this long before one tries Redis again. */
const RETRY_AFTER_FAILURE_MS = 1_000;
/** How long start-up waits for Redis before serving with memory counters. */
const STARTUP_WAIT_MS = 1_000;

export const redisKey = (client: string, epochMs: number): string =>
  `${REDIS_KEY_PREFIX}:${utcDateKey(epochMs)}:${client}`;

/**
 * Daily counters shared by every instance in Redis: one atomic INCR (+ EXPIRE on the day's first
 * hit) per request, so exactly `limit` requests pass per client per day across instances.
 * When Redis is unreachable or slow, requests are counted in this instance's memory instead (never
 * an error, never a long wait); ioredis reconnects by itself and shared counting resumes. Each
 * change is logged once. The memory counters also follow the shared counts while Redis answers,
 * so a fallback goes on from the last count this instance saw.
 */
export class RedisDailyLimitStorage
  extends DailyLimitStorage
  implements OnModuleInit, OnApplicationShutdown
{
  private counting: DailyLimitState['counting'] = 'memory';
  private since: Date;
  /** Bumped on every fall-back, so a reply sent before it cannot announce a recovery. */
  private failures = 0;
  private nextTry = 0;
  private lastError = 'not connected';
  private closing = false;
  private started?: Promise<void>;
  private stopped?: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly memory: MemoryDailyLimitStorage,
    private readonly clock: Clock,
    private readonly address: string,
    private readonly logger: LoggerService = new Logger('DailyLimit'),
  ) {
    super();
    this.since = clock.now();
    redis.on('ready', () => this.switchTo('redis'));
    redis.on('close', () => this.switchTo('memory', 'connection closed'));
    // ioredis reports every failed reconnection here; the switch above logs the outage once.
    redis.on('error', (error: Error) => (this.lastError = error.message || error.name));
  }

  async hit(key: string, limit: number): Promise<DailyLimitRecord> {
    const now = this.clock.now().getTime();
    if (this.mayTryRedis()) {
      const failures = this.failures;
      try {
        const ttl = secondsUntilReset(now) + EXPIRY_GRACE_SECONDS;
        const shared = await this.redis.dailyHit(redisKey(key, now), ttl);
        if (failures === this.failures) this.switchTo('redis');
        return this.memory.hit(key, limit, shared, now);
      } catch (error) {
        this.nextTry = performance.now() + RETRY_AFTER_FAILURE_MS;
        this.switchTo('memory', error instanceof Error ? error.message : String(error));
      }
    }
    return this.memory.hit(key, limit, 0, now);
  }

  /**
   * Over the limit by the count this instance last saw (shared counts while Redis answers, its
   * own while it does not): refused at once, counted in memory only. Shared counts never fall
   * within a day, so no instance would have let the request through.
   */
  override refuseAtOnce(key: string, limit: number): DailyLimitRecord | undefined {
    return this.memory.refuseAtOnce(key, limit, this.clock.now().getTime());
  }

  state(): DailyLimitState {
    const shared = this.counting === 'redis';
    return { store: 'redis', counting: this.counting, shared, since: this.since.toISOString() };
  }

  /** Waits briefly for Redis so the first requests are shared; serves from memory if it is down. */
  onModuleInit(): Promise<void> {
    this.started ??= this.start();
    return this.started;
  }

  onApplicationShutdown(): Promise<void> {
    this.stopped ??= this.stop();
    return this.stopped;
  }

  private mayTryRedis(): boolean {
    if (this.redis.status !== 'ready') return false;
    return this.counting === 'redis' || performance.now() >= this.nextTry;
  }

  private switchTo(counting: DailyLimitState['counting'], reason = ''): void {
    if (counting === this.counting || this.closing) return;
    this.counting = counting;
    this.since = this.clock.now();
    if (counting === 'redis') {
      this.logger.log(`Daily counters shared in Redis at ${this.address}`);
    } else {
      this.failures += 1;
      this.logger.warn(
        `Redis at ${this.address} unavailable (${reason}): counting in this instance's memory until it is back`,
      );
    }
  }

  private async start(): Promise<void> {
    if (this.redis.status !== 'ready') {
      await once(this.redis, 'ready', { signal: AbortSignal.timeout(STARTUP_WAIT_MS) }).catch(
        () => undefined,
      );
    }
    if (this.counting === 'memory') {
      this.logger.warn(
        `Redis at ${this.address} unavailable at start-up (${this.lastError}): counting in this instance's memory until it is back`,
      );
    }
  }

  private async stop(): Promise<void> {
    this.closing = true;
    if (this.redis.status === 'ready') {
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else {
      this.redis.disconnect();
    }
  }
}
