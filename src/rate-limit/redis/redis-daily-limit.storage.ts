import { Logger, LoggerService, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../../common/clock';
import { DEFAULT_REDIS_CLOCK_OFFSET_WARN_MS } from '../../config/environment';
import {
  DAILY_LIMIT_CONTEXT,
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from '../daily-limit.storage';
import { type CountedInstant, secondsUntilReset } from '../daily-window';
import type { DailyLimitFallback } from '../memory-daily-limit.storage';
import { RedisCatchUp } from './redis-catch-up';
import { RedisClockOffset } from './redis-clock-offset';
import { RedisContributionLedger } from './redis-contribution-ledger';
import { dayKey } from './redis-daily-count-script';
import { RedisDailyCounter } from './redis-daily-counter';
import { RedisServerCheck } from './redis-server-check';
import { RedisFailover } from './redis-failover';
import type { RedisConnection } from './redis-connection';

/**
 * Daily counters shared by every instance in Redis: one atomic script per request on the client's
 * day key (redis-daily-count-script.ts), so exactly `limit` requests pass per client per day
 * across instances. Each instance adds to a field of its own in that key (a random id per
 * process) and remembers what it contributed (RedisContributionLedger), so a Redis that comes
 * back empty gets it back. Where it counts, in Redis or alone in memory, is RedisFailover's
 * decision. The memory counters follow the shared counts while Redis answers, so a fallback goes
 * on from there. A key holding something else than a count is that client's event, never an outage.
 * Which day a hit counts in is the memory store's decision (`countedAt`: time only moves forward),
 * for the counting and the catch-up alike; seconds (reset headers, expiries) are the clock's.
 */
export class RedisDailyLimitStorage
  extends DailyLimitStorage
  implements OnModuleInit, OnApplicationShutdown
{
  private readonly ledger: RedisContributionLedger;
  private readonly counter: RedisDailyCounter;
  private readonly serverCheck: RedisServerCheck;
  private readonly failover: RedisFailover;
  private readonly clockOffsetCheck: RedisClockOffset;
  private started?: Promise<void>;
  private stopped?: Promise<void>;

  constructor(
    private readonly connection: RedisConnection,
    /** This instance's own counts (MemoryDailyLimitStorage's `fallback`). */
    private readonly memory: DailyLimitFallback,
    private readonly clock: Clock,
    logger: LoggerService = new Logger(DAILY_LIMIT_CONTEXT),
    {
      allowEviction = false,
      clockOffsetWarnMs = DEFAULT_REDIS_CLOCK_OFFSET_WARN_MS,
    }: { allowEviction?: boolean; clockOffsetWarnMs?: number } = {},
  ) {
    super();
    this.ledger = new RedisContributionLedger(memory.maxClients);
    // This process's field in each client's key; a restarted instance has lost its counts anyway.
    const instance = randomBytes(6).toString('base64url');
    this.counter = new RedisDailyCounter(connection, this.ledger, memory, instance, logger);
    this.serverCheck = new RedisServerCheck(connection, allowEviction, logger);
    const countedAt = () => memory.countedAt(clock.now().getTime());
    const catchUp = new RedisCatchUp(connection, this.ledger, this.counter, countedAt, logger);
    const { serverCheck, ledger } = this;
    this.failover = new RedisFailover(connection, serverCheck, catchUp, ledger, clock, logger);
    this.clockOffsetCheck = new RedisClockOffset(connection, clock, clockOffsetWarnMs, logger);
  }

  /** This process's field in each client's key. */
  get instance(): string {
    return this.counter.instance;
  }

  async hit(key: string, limit: number): Promise<DailyLimitRecord> {
    // Time only moves forward: a clock behind the day already counted in still counts in it.
    const at = this.memory.countedAt(this.clock.now().getTime());
    if (this.failover.inRedis) {
      const shared = await this.countInRedis(key, limit, at);
      if (shared !== undefined) return shared;
    }
    this.ledger.countAlone(key, dayKey(key, at.day), at.day);
    return this.memory.hit(key, limit, at.now);
  }

  /**
   * Over the limit by the count this instance last saw (shared counts while Redis answers, its
   * own while it does not): refused at once, counted in memory only. Such a client still asks
   * Redis every few seconds (BLOCKED_RECHECK_MS), so an operator's reset of its key reaches it.
   */
  override refuseAtOnce(key: string, limit: number): DailyLimitRecord | undefined {
    const now = this.clock.now().getTime();
    const over = this.memory.count(key, now) >= limit;
    if (over && this.failover.inRedis && this.ledger.recheckDue(key, this.memory.countedAt(now)))
      return undefined;
    return this.memory.refuseAtOnce(key, limit, now);
  }

  state(): DailyLimitState {
    const { evictionPolicy } = this.serverCheck;
    const clockOffsetSeconds = this.clockOffsetCheck.skewSeconds;
    return {
      store: 'redis',
      topology: this.connection.topology,
      ...this.failover.state(),
      ...(evictionPolicy !== undefined && { evictionPolicy }),
      ...(clockOffsetSeconds !== undefined && { clockOffsetSeconds }),
    };
  }

  override clockOffset(): number | undefined {
    return this.clockOffsetCheck.offset;
  }

  /**
   * Waits briefly for Redis so the first requests are shared; serves from memory if it is down.
   * Then measures the clock's offset from Redis's, now and every 30 s.
   */
  onModuleInit(): Promise<void> {
    this.started ??= this.failover.start().then(() => this.clockOffsetCheck.start());
    return this.started;
  }

  onApplicationShutdown(): Promise<void> {
    this.clockOffsetCheck.stop();
    this.stopped ??= this.failover.stop();
    return this.stopped;
  }

  /**
   * The hit added to the shared count, or undefined when the command failed or timed out (then
   * counted alone). A command that timed out may still reach Redis: that hit then counts twice, a
   * request fewer for the client that day (docs/contract.md, "Daily limit").
   */
  private async countInRedis(key: string, limit: number, at: CountedInstant) {
    const redisKeyNow = dayKey(key, at.day);
    let reply: unknown;
    try {
      reply = await this.counter.hit(key, redisKeyNow, at);
    } catch (error) {
      this.failover.failed(error);
      return undefined;
    }
    return this.counted(key, redisKeyNow, limit, reply, at);
  }

  /**
   * A reply to a hit. The shared count is exact: a full local copy does not make the client share
   * a wider budget. A count that went down (an operator's reset) is followed; an unusable reply
   * is counted in memory, for this client only.
   */
  private counted(
    key: string,
    redisKey: string,
    limit: number,
    reply: unknown,
    at: CountedInstant,
  ) {
    const count = this.counter.read(key, redisKey, reply, at.day, this.failover.steady);
    const { now, day } = at;
    if (count === undefined) return this.memory.hit(key, limit, now);
    // A shared count that comes back after its day (another hit started the next one meanwhile)
    // was counted there: answered as it is, without touching the later day's counts.
    if (this.memory.isPast(day))
      return dailyRecord(count.total, limit, secondsUntilReset(now, day));
    if (!this.memory.tracks(key, now)) {
      // Past the Map: the answer is the shared count, and the sketch is raised to it (it never
      // falls), so that a fallback goes on from there rather than from zero.
      this.memory.raiseTo(key, limit, count.total, now);
      return dailyRecord(count.total, limit, secondsUntilReset(now, day));
    }
    return count.reset
      ? this.memory.followDown(key, limit, count.total, now)
      : this.memory.raiseTo(key, limit, count.total, now);
  }
}
