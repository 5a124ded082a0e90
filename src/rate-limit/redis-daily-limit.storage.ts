import { Logger, LoggerService, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { once } from 'node:events';
import type Redis from 'ioredis';
import { Clock } from '../common/clock';
import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from './daily-limit.storage';
import { secondsUntilReset, utcDateKey, utcDayNumber } from './daily-window';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import './redis-client';

/** Every key starts with this, then the UTC date, then the client: `depreciation:daily:2026-11-21:203.0.113.7`. */
export const REDIS_KEY_PREFIX = 'depreciation:daily';
/** Keys outlive their day by this much, so an instance whose clock lags a little still finds its count. */
export const EXPIRY_GRACE_SECONDS = 60;
/** While counting alone, how often the store asks Redis whether it is back (one PING). */
export const RECOVERY_PROBE_MS = 1_000;
/** How long start-up waits for Redis before serving with memory counters. */
const STARTUP_WAIT_MS = 1_000;

export const redisKey = (client: string, epochMs: number): string =>
  `${REDIS_KEY_PREFIX}:${utcDateKey(epochMs)}:${client}`;

/** Hits counted in this instance's memory while Redis was away, by Redis key, not yet added there. */
interface CountedAlone {
  hits: number;
  /** The UTC day of the key (its expiry follows from it). */
  day: number;
}

/**
 * Daily counters shared by every instance in Redis: one atomic INCRBY (+ EXPIRE on the day's first
 * hit) per request, so exactly `limit` requests pass per client per day across instances.
 * When Redis is unreachable or slow, requests are counted in this instance's memory instead (never
 * an error, never a long wait), and remembered. While alone, the store asks Redis every
 * RECOVERY_PROBE_MS whether it is back (and when ioredis reconnects); once it answers, the store
 * adds what it counted alone to the shared counts (INCRBY of each client's hits, so the sum over
 * instances is exact), and only then counts in Redis again. Each change is logged once. The memory
 * counters follow the shared counts while Redis answers, so a fallback goes on from there.
 */
export class RedisDailyLimitStorage
  extends DailyLimitStorage
  implements OnModuleInit, OnApplicationShutdown
{
  private counting: DailyLimitState['counting'] = 'memory';
  private since: Date;
  /** Bumped on every failure, so a recovery that a failure overtook does not announce itself. */
  private failures = 0;
  private lastError = 'not connected';
  private closing = false;
  private readonly alone = new Map<string, CountedAlone>();
  private recovering?: Promise<void>;
  private probe?: NodeJS.Timeout;
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
    redis.on('ready', () => void this.recover());
    redis.on('close', () => this.fallBack('connection closed'));
    // ioredis reports every failed reconnection here; the fall-back logs the outage once.
    redis.on('error', (error: Error) => (this.lastError = error.message || error.name));
  }

  async hit(key: string, limit: number): Promise<DailyLimitRecord> {
    const now = this.clock.now().getTime();
    if (this.counting === 'redis') {
      let shared: number | undefined;
      try {
        const ttl = secondsUntilReset(now) + EXPIRY_GRACE_SECONDS;
        shared = await this.redis.dailyAdd(redisKey(key, now), 1, ttl);
      } catch (error) {
        this.fallBack(error instanceof Error ? error.message : String(error));
      }
      // Added to the shared count: whatever happened meanwhile, it is not counted alone too. The
      // shared count is exact: a full local copy does not make the client share a wider budget.
      if (shared !== undefined) {
        return this.memory.tracks(key, now)
          ? this.memory.hit(key, limit, shared, now)
          : dailyRecord(shared, limit, secondsUntilReset(now));
      }
    }
    this.countAlone(redisKey(key, now), now);
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

  /** Remembers a hit counted alone, for as many clients as the memory store tracks (the bound). */
  private countAlone(key: string, now: number): void {
    const entry = this.alone.get(key);
    if (entry) entry.hits += 1;
    else if (this.alone.size < this.memory.maxClients)
      this.alone.set(key, { hits: 1, day: utcDayNumber(now) });
  }

  private fallBack(reason: string): void {
    this.failures += 1;
    if (this.counting === 'memory' || this.closing) return;
    this.counting = 'memory';
    this.since = this.clock.now();
    this.logger.warn(
      `Redis at ${this.address} unavailable (${reason}): counting in this instance's memory until it is back`,
    );
    this.startProbing();
  }

  private startProbing(): void {
    this.probe ??= setInterval(() => {
      if (this.redis.status === 'ready') void this.recover();
    }, RECOVERY_PROBE_MS).unref();
  }

  /**
   * Once Redis answers: add what was counted alone, count in Redis again, then add what was counted
   * alone meanwhile (under load, new hits would otherwise keep the catch-up from ever ending).
   * One at a time.
   */
  private recover(): Promise<void> {
    if (this.counting === 'redis' || this.closing) return Promise.resolve();
    const failures = this.failures;
    this.recovering ??= this.redis
      .ping()
      .then(() => this.addCountedAlone())
      .then(() => {
        if (failures !== this.failures || this.closing) return;
        clearInterval(this.probe);
        this.probe = undefined;
        this.counting = 'redis';
        this.since = this.clock.now();
        this.logger.log(`Daily counters shared in Redis at ${this.address}`);
        return this.addCountedAlone().catch((error: unknown) => this.fallBack(String(error)));
      })
      .catch((error: unknown) => {
        this.lastError = error instanceof Error ? error.message : String(error);
      })
      .finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  /**
   * Adds each client's hits counted alone so far to its shared count, all at once (pipelined);
   * what could not be added is kept for the next try.
   */
  private async addCountedAlone(): Promise<void> {
    const batch = [...this.alone];
    this.alone.clear();
    const now = this.clock.now().getTime();
    const results = await Promise.allSettled(
      batch.map(([key, { hits, day }]) =>
        this.redis.dailyAdd(
          key,
          hits,
          (day === utcDayNumber(now) ? secondsUntilReset(now) : 0) + EXPIRY_GRACE_SECONDS,
        ),
      ),
    );
    const failed = results.flatMap((result, i) => (result.status === 'rejected' ? [batch[i]] : []));
    for (const [key, { hits, day }] of failed) {
      const entry = this.alone.get(key);
      if (entry) entry.hits += hits;
      else this.alone.set(key, { hits, day });
    }
    if (failed.length > 0) throw new Error(`${failed.length} catch-up additions failed`);
  }

  private async start(): Promise<void> {
    if (this.redis.status !== 'ready') {
      await once(this.redis, 'ready', { signal: AbortSignal.timeout(STARTUP_WAIT_MS) }).catch(
        () => undefined,
      );
    }
    await this.recovering;
    if (this.counting === 'memory') {
      this.logger.warn(
        `Redis at ${this.address} unavailable at start-up (${this.lastError}): counting in this instance's memory until it is back`,
      );
      this.startProbing();
    }
  }

  private async stop(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    // What was counted alone reaches Redis before the instance goes, if Redis answers.
    if (this.redis.status === 'ready') await this.addCountedAlone().catch(() => undefined);
    if (this.redis.status === 'ready') {
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else {
      this.redis.disconnect();
    }
  }
}
