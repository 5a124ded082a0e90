import type { LoggerService } from '@nestjs/common';
import type { Clock } from '../../common/clock';
import type { DailyLimitState } from '../daily-limit.storage';
import type { RedisCatchUpRecovery } from './redis-catch-up.recovery';
import type { RedisContributionLedger } from './redis-contribution.ledger';
import { EvictingRedisError, type RedisServerCheck } from './redis-server.check';
import type { RedisConnection } from './redis.connection';
import { errorText } from '../../common/error-text';

/** While counting alone, how often the store asks Redis whether it is back. */
const RECOVERY_PROBE_MS = 1_000;
/** How long start-up waits for Redis before serving with memory counters. */
const STARTUP_WAIT_MS = 1_000;

/**
 * Where the Redis store counts, and when that changes. When Redis is unreachable or slow, the
 * instance counts in its own memory (never an error, never a long wait). While alone, it asks
 * Redis every RECOVERY_PROBE_MS whether it is back (and when ioredis reconnects); once it answers,
 * the server check and the catch-up run, and only then does it count in Redis again. Each change
 * is logged once. A failed command while a Cluster is up is that slot's outage, not the
 * instance's: its clients are counted alone (`partly`) while every other client stays shared, and
 * the probe checks every RECOVERY_PROBE_MS which slots changed primary.
 */
export class RedisFailover {
  private counting: DailyLimitState['counting'] = 'memory';
  private since: Date;
  /** In a Cluster: since when some clients are counted alone while the others are shared. */
  private partlySince?: Date;
  /** Bumped on every failure, so a recovery that a failure overtook does not announce itself. */
  private failures = 0;
  private lastError = 'not connected';
  private closing = false;
  private recovering?: Promise<void>;
  private probe?: NodeJS.Timeout;

  constructor(
    private readonly connection: RedisConnection,
    private readonly serverCheck: RedisServerCheck,
    private readonly catchUp: RedisCatchUpRecovery,
    private readonly ledger: RedisContributionLedger,
    private readonly clock: Clock,
    private readonly logger: LoggerService,
  ) {
    this.since = clock.now();
    const client = connection.client;
    client.on('ready', () => void this.recover());
    client.on('close', () => this.fallBack('connection closed'));
    // ioredis reports every failed reconnection here; the fall-back logs the outage once.
    client.on('error', (error: Error) => (this.lastError = error.message || error.name));
  }

  /** Whether hits go to Redis (in a Cluster, some slots' clients may still be counted alone). */
  get inRedis(): boolean {
    return this.counting === 'redis';
  }

  /**
   * In Redis with no catch-up running, no slot counted alone and no hit counted alone left: a
   * field that did not grow past what this instance knew is then an operator's reset.
   */
  get steady(): boolean {
    return (
      this.inRedis &&
      this.recovering === undefined &&
      this.partlySince === undefined &&
      this.ledger.pendingClients === 0
    );
  }

  state(): Pick<DailyLimitState, 'counting' | 'shared' | 'since'> {
    const shared = this.inRedis && this.partlySince === undefined;
    return {
      counting: this.counting,
      shared,
      since: (this.partlySince ?? this.since).toISOString(),
    };
  }

  /** A command failed: the whole instance counts alone, or in a Cluster that is up, one slot. */
  failed(error: unknown): void {
    if (this.connection.slotOutage) this.partly(errorText(error));
    else this.fallBack(errorText(error));
  }

  /** Waits briefly for Redis so the first requests are shared; serves from memory if it is down. */
  async start(): Promise<void> {
    await this.connection.firstReady(STARTUP_WAIT_MS);
    await this.recovering;
    // Only before serving: an instance that meets such a Redis later goes on counting alone.
    if (this.serverCheck.refusal) {
      this.closing = true;
      this.connection.client.disconnect();
      throw new EvictingRedisError(this.serverCheck.refusal);
    }
    this.serverCheck.serving = true;
    if (!this.inRedis && !this.catchUp.databaseRefused && !this.serverCheck.keepsAlone) {
      this.logger.warn(
        `Redis at ${this.connection.address} unavailable at start-up (${this.lastError}): counting in this instance's memory until it is back`,
      );
    }
    if (!this.inRedis || this.connection.probesWhileShared) this.startProbing();
  }

  /** What was counted alone reaches Redis before the instance goes, if Redis answers. */
  async stop(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    const client = this.connection.client;
    if (client.status === 'ready') await this.catchUp.addCountedAlone().catch(() => undefined);
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  }

  private partly(reason: string): void {
    this.failures += 1;
    if (!this.inRedis || this.closing || this.partlySince) return;
    this.partlySince = this.clock.now();
    this.logger.warn(
      `Redis at ${this.connection.address} unavailable for some clients (${reason}): counting them in this instance's memory until their slots answer`,
    );
  }

  private fallBack(reason: string): void {
    this.failures += 1;
    if (!this.inRedis || this.closing) return;
    this.counting = 'memory';
    this.since = this.clock.now();
    this.logger.warn(
      `Redis at ${this.connection.address} unavailable (${reason}): counting in this instance's memory until it is back`,
    );
    this.startProbing();
  }

  private startProbing(): void {
    this.probe ??= setInterval(() => {
      if (this.connection.client.status !== 'ready') return;
      if (!this.inRedis) void this.recover();
      else if (this.connection.probesWhileShared) void this.rejoin();
    }, RECOVERY_PROBE_MS).unref();
  }

  /**
   * Once Redis answers: the server check and the catch-up (the database, a Redis that came back
   * empty, what was counted alone), then counting in Redis again. One at a time.
   */
  private recover(): Promise<void> {
    if (this.inRedis || this.closing) return Promise.resolve();
    const failures = this.failures;
    this.recovering ??= this.serverCheck
      .run()
      .then(() => this.catchUp.run())
      .then(() => this.shareAgain(failures))
      .catch((error: unknown) => {
        this.lastError = errorText(error);
      })
      .finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  /**
   * Counts in Redis again unless a failure overtook the recovery, then adds what was counted alone
   * meanwhile (under load, new hits would otherwise keep the catch-up from ever ending).
   */
  private shareAgain(failures: number): Promise<void> | undefined {
    if (failures !== this.failures || this.closing) return;
    if (!this.connection.probesWhileShared) {
      clearInterval(this.probe);
      this.probe = undefined;
    }
    this.counting = 'redis';
    this.partlySince = undefined;
    this.since = this.clock.now();
    this.logger.log(`Daily counters shared in Redis at ${this.connection.address}`);
    return this.catchUp
      .addCountedAlone()
      .catch((error: unknown) => this.fallBack(errorText(error)));
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
        if (!known || this.ledger.pendingClients > 0) return;
        this.partlySince = undefined;
        this.since = this.clock.now();
        this.logger.log(
          `Daily counters shared in Redis at ${this.connection.address} for every client again`,
        );
      })
      .catch(() => this.partly('catch-up failed'))
      .finally(() => (this.recovering = undefined));
    return this.recovering;
  }
}
