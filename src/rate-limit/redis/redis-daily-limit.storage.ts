import type { LoggerService, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../../common/clock';
import { DailyLimitStorage } from '../daily-limit.storage';
import type { CountedInstant, DailyLimitRecord, DailyLimitState } from '../daily-limit.storage';
import type { DailyLimitFallback } from '../memory-daily-limit.storage';
import type { Tracing } from '../../tracing/tracing';
import { RedisCatchUp } from './redis-catch-up';
import { RedisClockOffset } from './redis-clock-offset';
import { RedisContributionLedger } from './redis-contribution-ledger';
import { RedisDailyCounter } from './redis-daily-count-script';
import { RedisRecovery } from './redis-recovery';
import { RedisServerCheck } from './redis-server-check';
import type { RedisConnection } from './redis-connection';

type RedisStoreSettings = { allowEviction: boolean; clockOffsetWarnMs: number; tracing?: Tracing };

/**
 * Daily counters shared in Redis: one atomic script per hit on the client's day key, so exactly
 * `limit` pass per client per day across instances. Each instance adds to a field of its own and
 * remembers it, so a Redis that comes back empty gets it back.
 */
export class RedisDailyLimitStorage
  extends DailyLimitStorage
  implements OnModuleInit, OnApplicationShutdown
{
  /** This process's field in each client's key; a restarted instance has lost its counts anyway. */
  readonly instance = randomBytes(6).toString('base64url');
  private readonly ledger: RedisContributionLedger;
  private readonly counter: RedisDailyCounter;
  private readonly recovery: RedisRecovery;
  private readonly clockOffsetCheck: RedisClockOffset;
  private readonly traced?: (hit: () => Promise<unknown>) => Promise<unknown>;
  private started?: Promise<void>;
  private stopped?: Promise<void>;

  constructor(
    private readonly connection: RedisConnection,
    private readonly memory: DailyLimitFallback,
    private readonly clock: Clock,
    logger: LoggerService,
    { allowEviction, clockOffsetWarnMs, tracing }: RedisStoreSettings,
  ) {
    super();
    // A span names the server, never the client's key.
    const attributes = {
      'db.system.name': 'redis',
      'db.operation.name': 'EVALSHA',
      'server.address': connection.address,
    };
    if (tracing?.on) this.traced = (hit) => tracing.clientSpan('EVALSHA', attributes, hit);
    this.ledger = new RedisContributionLedger(memory.maxClients);
    this.counter = new RedisDailyCounter(connection, this.ledger, memory, this.instance, logger);
    const countedAt = () => memory.countedAt(clock.now().getTime());
    const catchUp = new RedisCatchUp(connection, this.ledger, this.counter, countedAt, logger);
    const serverCheck = new RedisServerCheck(connection, allowEviction, logger);
    this.recovery = new RedisRecovery(connection, serverCheck, catchUp, this.ledger, clock, logger);
    this.clockOffsetCheck = new RedisClockOffset(connection, clock, clockOffsetWarnMs, logger);
  }

  async hit(key: string, limit: number): Promise<DailyLimitRecord> {
    const at = this.memory.countedAt(this.clock.now().getTime());
    if (this.recovery.inRedis) {
      const shared = await this.countInRedis(key, limit, at);
      if (shared !== undefined) return shared;
    }
    this.ledger.countAlone(key, at.day);
    return this.memory.hit(key, limit, at.now);
  }

  override refuseAtOnce(key: string, limit: number): DailyLimitRecord | undefined {
    const now = this.clock.now().getTime();
    const over = this.memory.count(key, now) >= limit;
    if (over && this.recovery.inRedis && this.ledger.recheckDue(key, this.memory.countedAt(now)))
      return undefined;
    return this.memory.refuseAtOnce(key, limit, now);
  }

  state(): DailyLimitState {
    return {
      store: 'redis',
      topology: this.connection.endpoint.topology,
      ...this.recovery.state(),
      clockOffsetSeconds: this.clockOffsetCheck.skewSeconds,
    };
  }

  override clockOffset(): number | undefined {
    return this.clockOffsetCheck.offset;
  }

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
   * Undefined when the command failed or timed out (then counted alone). A timed-out command may
   * still reach Redis: that hit counts twice (docs/contract.md, "Daily limit"). The shared count
   * is exact; a count that went down (an operator's reset) is followed.
   */
  private async countInRedis(key: string, limit: number, at: CountedInstant) {
    let reply: unknown;
    try {
      const hit = () => this.counter.hit(key, at);
      reply = await (this.traced ? this.traced(hit) : hit());
    } catch (error) {
      this.recovery.failed(error);
      return undefined;
    }
    const count = this.counter.read(key, reply, at.day, this.recovery.steady);
    if (count === undefined) return this.memory.hit(key, limit, at.now);
    return this.memory.follow(key, limit, count.total, count.reset, at);
  }
}
