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
import { RedisCountingMode } from './redis-counting-mode';
import { RedisRecovery } from './redis-recovery';
import { RedisServerCheck } from './redis-server-check';
import type { RedisConnection } from './redis-connection';

/*
 * The store's states (docs/operations.md, "When Redis fails", says the same for operators):
 *
 * - Sharing: every hit is one script call on the client's key, waiting at most
 *   REDIS_COMMAND_TIMEOUT_MS, and exactly RATE_LIMIT_PER_DAY requests pass per client across every
 *   instance. Cost to a client: one Redis round trip per request. A client over its limit is
 *   refused from memory and asks Redis again every BLOCKED_RECHECK_MS (5 s), so a reset reaches it.
 * - Partly (a Cluster only): a command failed while the Cluster is up. Each request of that slot's
 *   clients still tries Redis, and once its command fails (within the command timeout) is counted
 *   in this instance's memory: such a client may pass up to one limit per instance until the slot
 *   answers. Every other client stays shared. /health: counting redis, shared false (degraded).
 * - Alone: Redis unreachable, too slow, or refused once serving (an evicting policy not accepted,
 *   which stops start-up instead; NOPERM on the script; a database it refuses), or not answered
 *   yet at start-up (at most 1 s). Every hit is counted in memory at once, going on from the last
 *   shared count seen: no request waits or fails, and a client may pass up to one limit per
 *   instance. The hits are remembered (up to MAX_TRACKED_CLIENTS clients) to be added later.
 *   /health: counting memory (degraded).
 * - Catching up: Redis answers again (ioredis `ready`, or the probe every second). The server
 *   check runs, then the catch-up: the database, today's contributions re-added where Redis came
 *   back empty (a new run_id), the hits counted alone added, 1,000 one-key commands at a time.
 *   Requests are answered as when alone until it ends.
 *
 * Moves (RedisRecovery decides them, RedisCountingMode holds and logs them): alone to catching up
 * on `ready` or a probe. Catching up to sharing when it ends with no failure since it began (the
 * hits counted alone meanwhile are added right after, and a failure there is a move to alone);
 * on a failure it stays alone. Sharing to alone when the connection closes, or a command fails or
 * times out outside a Cluster slot's outage; sharing to partly when a command fails while the
 * Cluster is up, or the probe's catch-up fails (in a Cluster the probe runs while sharing too: a
 * failover elsewhere may have emptied keys). Partly to sharing when that catch-up knows every
 * slot's primary and has nothing counted alone left; partly to alone as sharing to alone.
 * Shutdown adds what was counted alone if Redis answers.
 */

/**
 * Daily counters shared by every instance in Redis: one atomic script per request on the client's
 * day key (redis-daily-count-script.ts), so exactly `limit` requests pass per client per day
 * across instances. Each instance adds to a field of its own in that key (a random id per
 * process) and remembers what it contributed (RedisContributionLedger), so a Redis that comes
 * back empty gets it back. Where it counts (the states above) is RedisCountingMode's, when that
 * changes RedisRecovery's decision. The memory counters (`DailyLimitFallback`) follow the shared
 * counts while Redis answers, so a fallback goes on from there. A key holding something else than
 * a count is that client's event, never an outage. Which day a hit counts in is the memory store's
 * decision (`countedAt`: time only moves forward), for the counting and the catch-up alike;
 * seconds (reset headers, expiries) are the clock's.
 */
export class RedisDailyLimitStorage
  extends DailyLimitStorage
  implements OnModuleInit, OnApplicationShutdown
{
  private readonly ledger: RedisContributionLedger;
  private readonly counter: RedisDailyCounter;
  private readonly serverCheck: RedisServerCheck;
  private readonly mode: RedisCountingMode;
  private readonly recovery: RedisRecovery;
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
    this.mode = new RedisCountingMode(connection.address, clock, logger);
    const { mode, serverCheck, ledger } = this;
    this.recovery = new RedisRecovery(connection, mode, serverCheck, catchUp, ledger, logger);
    this.clockOffsetCheck = new RedisClockOffset(connection, clock, clockOffsetWarnMs, logger);
  }

  /** This process's field in each client's key. */
  get instance(): string {
    return this.counter.instance;
  }

  async hit(key: string, limit: number): Promise<DailyLimitRecord> {
    // Time only moves forward: a clock behind the day already counted in still counts in it.
    const at = this.memory.countedAt(this.clock.now().getTime());
    if (this.mode.inRedis) {
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
    if (over && this.mode.inRedis && this.ledger.recheckDue(key, this.memory.countedAt(now)))
      return undefined;
    return this.memory.refuseAtOnce(key, limit, now);
  }

  state(): DailyLimitState {
    const { evictionPolicy } = this.serverCheck;
    const clockOffsetSeconds = this.clockOffsetCheck.skewSeconds;
    return {
      store: 'redis',
      topology: this.connection.topology,
      ...this.mode.state(),
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
    this.started ??= this.recovery.start().then(() => this.clockOffsetCheck.start());
    return this.started;
  }

  onApplicationShutdown(): Promise<void> {
    this.clockOffsetCheck.stop();
    this.stopped ??= this.recovery.stop();
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
      this.recovery.failed(error);
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
    const count = this.counter.read(key, redisKey, reply, at.day, this.recovery.steady);
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
