import { Logger, LoggerService, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { Clock } from '../common/clock';
import {
  DailyLimitRecord,
  DailyLimitState,
  DailyLimitStorage,
  dailyRecord,
} from './daily-limit.storage';
import { secondsUntilReset, utcDayNumber } from './daily-window';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import { RedisClient, redisTopologyOf, withinCommandTimeout } from './redis-client';
import { RedisCatchUp } from './redis-catch-up';
import { RedisContributions } from './redis-contributions';
import { keyTtl, redisKey } from './redis-daily-count';
import { EvictingRedisError, RedisServerCheck } from './redis-server-check';
import { errorText } from '../edge/error-text';

export { EXPIRY_GRACE_SECONDS, REDIS_KEY_PREFIX, redisKey } from './redis-daily-count';
/** While counting alone, how often the store asks Redis whether it is back. */
export const RECOVERY_PROBE_MS = 1_000;
/** How long start-up waits for Redis before serving with memory counters. */
const STARTUP_WAIT_MS = 1_000;

/**
 * Daily counters shared by every instance in Redis: one atomic script per request on the client's
 * day key (redis-daily-count.ts), so exactly `limit` requests pass per client per day across
 * instances. Each instance adds to a field of its own in that key (a random id per process) and
 * remembers what it contributed (RedisContributions), so a Redis that comes back empty gets it back.
 * When Redis is unreachable or slow, requests are counted in this instance's memory instead (never
 * an error, never a long wait), and remembered. While alone, the store asks Redis every
 * RECOVERY_PROBE_MS whether it is back (and when ioredis reconnects); once it answers, the store
 * catches up (RedisCatchUp), and only then counts in Redis again. Each change is logged once. The
 * memory counters follow the shared counts while Redis answers, so a fallback goes on from there.
 * A key holding something else than a count is that client's event, never an outage.
 * In a Cluster, a command that fails while the cluster is up is that slot's outage, not the
 * instance's: its clients are counted alone (`partly`) while every other client stays shared, and
 * the store checks every RECOVERY_PROBE_MS which slots changed primary (RedisIdentity).
 */
export class RedisDailyLimitStorage
  extends DailyLimitStorage
  implements OnModuleInit, OnApplicationShutdown
{
  /** This process's field in each client's key; a restarted instance has lost its counts anyway. */
  readonly instance = randomBytes(6).toString('base64url');
  private counting: DailyLimitState['counting'] = 'memory';
  private since: Date;
  /** In a Cluster: since when some clients are counted alone while the others are shared. */
  private partlySince?: Date;
  /** Bumped on every failure, so a recovery that a failure overtook does not announce itself. */
  private failures = 0;
  private lastError = 'not connected';
  private closing = false;
  private readonly contributions: RedisContributions;
  private readonly catchUp: RedisCatchUp;
  private readonly serverCheck: RedisServerCheck;
  private recovering?: Promise<void>;
  private probe?: NodeJS.Timeout;
  private started?: Promise<void>;
  private stopped?: Promise<void>;

  constructor(
    private readonly redis: RedisClient,
    private readonly memory: MemoryDailyLimitStorage,
    private readonly clock: Clock,
    private readonly address: string,
    private readonly logger: LoggerService = new Logger('DailyLimit'),
    { allowEviction = false }: { allowEviction?: boolean } = {},
  ) {
    super();
    this.serverCheck = new RedisServerCheck(redis, address, allowEviction, logger);
    this.since = clock.now();
    this.contributions = new RedisContributions(memory.maxClients);
    this.catchUp = new RedisCatchUp(
      redis,
      this.contributions,
      memory,
      clock,
      this.instance,
      address,
      logger,
    );
    redis.on('ready', () => void this.recover());
    redis.on('close', () => this.fallBack('connection closed'));
    // ioredis reports every failed reconnection here; the fall-back logs the outage once.
    redis.on('error', (error: Error) => (this.lastError = errorText(error)));
  }

  async hit(key: string, limit: number): Promise<DailyLimitRecord> {
    const now = this.clock.now().getTime();
    if (this.counting === 'redis') {
      const redisKeyNow = redisKey(key, now);
      const own = this.contributions.ownOf(key, now);
      const floor = Math.max(own, this.memory.count(key, now));
      let reply: unknown;
      let failed = false;
      try {
        const ttl = keyTtl(utcDayNumber(now), now);
        const command = this.redis.dailyCount(
          redisKeyNow,
          this.instance,
          1,
          ttl,
          floor,
          own,
          'add',
        );
        reply = await withinCommandTimeout(this.redis, command);
      } catch (error) {
        failed = true;
        this.failed(errorText(error));
      }
      // Added to the shared count: whatever happened meanwhile, it is not counted alone too.
      if (!failed) return this.counted(key, redisKeyNow, limit, reply, now);
    }
    this.contributions.countAlone(key, redisKey(key, now), now);
    return this.memory.hit(key, limit, 0, now);
  }

  /**
   * Over the limit by the count this instance last saw (shared counts while Redis answers, its
   * own while it does not): refused at once, counted in memory only. Such a client still asks
   * Redis every few seconds (BLOCKED_RECHECK_MS), so an operator's reset of its key reaches it.
   */
  override refuseAtOnce(key: string, limit: number): DailyLimitRecord | undefined {
    const now = this.clock.now().getTime();
    const over = this.memory.count(key, now) >= limit;
    if (over && this.counting === 'redis' && this.contributions.recheckDue(key, now))
      return undefined;
    return this.memory.refuseAtOnce(key, limit, now);
  }

  state(): DailyLimitState {
    const shared = this.counting === 'redis' && this.partlySince === undefined;
    const since = (this.partlySince ?? this.since).toISOString();
    const topology = redisTopologyOf(this.redis);
    const { evictionPolicy } = this.serverCheck;
    const state = { store: 'redis', topology, counting: this.counting, shared, since } as const;
    return evictionPolicy === undefined ? state : { ...state, evictionPolicy };
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

  /**
   * A reply to a hit. The shared count is exact: a full local copy does not make the client share
   * a wider budget. A count that went down (an operator's reset) is followed; an unusable reply
   * is counted in memory, for this client only.
   */
  private counted(key: string, rkey: string, limit: number, reply: unknown, now: number) {
    const steady =
      this.counting === 'redis' &&
      this.recovering === undefined &&
      this.partlySince === undefined &&
      this.contributions.pendingClients === 0;
    const count = this.catchUp.read(key, rkey, reply, now, steady);
    if (count === undefined) return this.memory.hit(key, limit, 0, now);
    if (!this.memory.tracks(key, now))
      return dailyRecord(count.total, limit, secondsUntilReset(now));
    return count.reset
      ? this.memory.follow(key, limit, count.total, now)
      : this.memory.hit(key, limit, count.total, now);
  }

  /** A command failed: the whole instance counts alone, or in a Cluster that is up, one slot. */
  private failed(reason: string): void {
    if (!(this.redis instanceof Cluster) || this.redis.status !== 'ready') this.fallBack(reason);
    else this.partly(reason);
  }

  private partly(reason: string): void {
    this.failures += 1;
    if (this.counting === 'memory' || this.closing || this.partlySince) return;
    this.partlySince = this.clock.now();
    this.logger.warn(
      `Redis at ${this.address} unavailable for some clients (${reason}): counting them in this instance's memory until their slots answer`,
    );
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

  /** In a Cluster the probe never stops: a failover elsewhere may have emptied keys seen here. */
  private startProbing(): void {
    this.probe ??= setInterval(() => {
      if (this.redis.status !== 'ready') return;
      if (this.counting === 'memory') void this.recover();
      else if (this.redis instanceof Cluster) void this.rejoin();
    }, RECOVERY_PROBE_MS).unref();
  }

  /**
   * In a Cluster counting in Redis: re-adds to slots that changed primary and adds what was
   * counted alone; once nothing failed meanwhile, nothing is left, and every slot's primary is
   * known (a slot whose primary just failed over is re-added to first), every client is shared.
   */
  private rejoin(): Promise<void> {
    if (this.recovering || this.closing) return Promise.resolve();
    const failures = this.failures;
    this.recovering = this.catchUp
      .run()
      .then((known) => {
        if (failures !== this.failures || this.closing || this.partlySince === undefined) return;
        if (!known) return;
        if (this.contributions.pendingClients > 0) return;
        this.partlySince = undefined;
        this.since = this.clock.now();
        this.logger.log(`Daily counters shared in Redis at ${this.address} for every client again`);
      })
      .catch(() => this.partly('catch-up failed'))
      .finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  /**
   * Once Redis answers: catch up (the database, a Redis that came back empty, what was counted
   * alone), count in Redis again, then add what was counted alone meanwhile (under load, new hits
   * would otherwise keep the catch-up from ever ending). One at a time.
   */
  private recover(): Promise<void> {
    if (this.counting === 'redis' || this.closing) return Promise.resolve();
    const failures = this.failures;
    this.recovering ??= this.serverCheck
      .run()
      .then(() => this.catchUp.run())
      .then(() => {
        if (failures !== this.failures || this.closing) return;
        if (!(this.redis instanceof Cluster)) clearInterval(this.probe);
        if (!(this.redis instanceof Cluster)) this.probe = undefined;
        this.counting = 'redis';
        this.partlySince = undefined;
        this.since = this.clock.now();
        this.logger.log(`Daily counters shared in Redis at ${this.address}`);
        return this.catchUp
          .addCountedAlone()
          .catch((error: unknown) => this.fallBack(errorText(error)));
      })
      .catch((error: unknown) => {
        this.lastError = errorText(error);
      })
      .finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  private async start(): Promise<void> {
    if (this.redis.status !== 'ready') await this.firstReady();
    await this.recovering;
    // Only before serving: an instance that meets such a Redis later goes on counting alone.
    if (this.serverCheck.refusal) {
      this.closing = true;
      this.redis.disconnect();
      throw new EvictingRedisError(this.serverCheck.refusal);
    }
    this.serverCheck.serving = true;
    if (
      this.counting === 'memory' &&
      !this.catchUp.databaseRefused &&
      !this.serverCheck.keepsAlone
    ) {
      this.logger.warn(
        `Redis at ${this.address} unavailable at start-up (${this.lastError}): counting in this instance's memory until it is back`,
      );
    }
    if (this.counting === 'memory' || this.redis instanceof Cluster) this.startProbing();
  }

  /**
   * Until the connection is ready, fails, or STARTUP_WAIT_MS pass. A refusal during the handshake
   * (a database Redis refuses) is not a failure to connect: 'ready' follows, and the catch-up says.
   */
  private firstReady(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done).off('error', failed);
        resolve();
      };
      const failed = (error: Error) => error.name !== 'ReplyError' && done();
      const timer = setTimeout(done, STARTUP_WAIT_MS);
      this.redis.on('ready', done).on('error', failed);
    });
  }

  private async stop(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    // What was counted alone reaches Redis before the instance goes, if Redis answers.
    if (this.redis.status === 'ready') await this.catchUp.addCountedAlone().catch(() => undefined);
    if (this.redis.status === 'ready') {
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else {
      this.redis.disconnect();
    }
  }
}
