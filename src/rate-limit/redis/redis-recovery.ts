import type { LoggerService } from '@nestjs/common';
import { errorText } from '../../common/error-text';
import type { RedisCatchUp } from './redis-catch-up';
import type { RedisConnection } from './redis-connection';
import type { RedisContributionLedger } from './redis-contribution-ledger';
import type { RedisCountingMode } from './redis-counting-mode';
import { EvictingRedisError, type RedisServerCheck } from './redis-server-check';

/** While counting alone, how often the store asks Redis whether it is back. */
const RECOVERY_PROBE_MS = 1_000;
/** How long start-up waits for Redis before serving with memory counters. */
const STARTUP_WAIT_MS = 1_000;

/**
 * When the Redis store's counting mode changes. When Redis is unreachable or slow, the instance
 * counts in its own memory (never an error, never a long wait). While alone, it asks Redis every
 * RECOVERY_PROBE_MS whether it is back (and when ioredis reconnects); once it answers, the server
 * check and the catch-up run, and only then does it count in Redis again. A failed command while
 * a Cluster is up is that slot's outage, not the instance's: its clients are counted alone
 * (`partly`) while every other client stays shared, and the probe checks every RECOVERY_PROBE_MS
 * which slots changed primary.
 */
export class RedisRecovery {
  /** The catch-up under way, to count in Redis again or to rejoin every slot (one at a time). */
  private running?: Promise<void>;
  private lastError = 'not connected';
  private probe?: NodeJS.Timeout;

  constructor(
    private readonly connection: RedisConnection,
    private readonly mode: RedisCountingMode,
    private readonly serverCheck: RedisServerCheck,
    private readonly catchUp: RedisCatchUp,
    private readonly ledger: RedisContributionLedger,
    private readonly logger: LoggerService,
  ) {
    const client = connection.client;
    client.on('ready', () => void this.recover());
    client.on('close', () => this.fallBack('connection closed'));
    // ioredis reports every failed reconnection here; the fall-back logs the outage once.
    client.on('error', (error: Error) => (this.lastError = errorText(error)));
  }

  /**
   * Sharing every client with no catch-up running and no hit counted alone left: a field that did
   * not grow past what this instance knew is then an operator's reset.
   */
  get steady(): boolean {
    return this.mode.sharing && this.running === undefined && this.ledger.pendingClients === 0;
  }

  /** A command failed: the whole instance counts alone, or in a Cluster that is up, one slot. */
  failed(error: unknown): void {
    if (this.connection.slotOutage) this.mode.toPartly(errorText(error));
    else this.fallBack(errorText(error));
  }

  /** Waits briefly for Redis so the first requests are shared; serves from memory if it is down. */
  async start(): Promise<void> {
    await this.connection.firstReady(STARTUP_WAIT_MS);
    await this.running;
    // Only before serving: an instance that meets such a Redis later goes on counting alone.
    if (this.serverCheck.refusal) {
      this.mode.close();
      this.connection.client.disconnect();
      throw new EvictingRedisError(this.serverCheck.refusal);
    }
    this.serverCheck.serving = true;
    if (!this.mode.inRedis && !this.catchUp.databaseRefused && !this.serverCheck.keepsAlone) {
      this.logger.warn(
        `Redis at ${this.connection.address} unavailable at start-up (${this.lastError}): counting in this instance's memory until it is back`,
      );
    }
    if (!this.mode.inRedis || this.connection.probesWhileShared) this.startProbing();
  }

  /** What was counted alone reaches Redis before the instance goes, if Redis answers. */
  async stop(): Promise<void> {
    this.mode.close();
    clearInterval(this.probe);
    const client = this.connection.client;
    if (client.status === 'ready') await this.catchUp.addCountedAlone().catch(() => undefined);
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  }

  private fallBack(reason: string): void {
    if (this.mode.toAlone(reason)) this.startProbing();
  }

  private startProbing(): void {
    this.probe ??= setInterval(() => {
      if (this.connection.client.status !== 'ready') return;
      if (!this.mode.inRedis) void this.recover();
      else if (this.connection.probesWhileShared) void this.rejoin();
    }, RECOVERY_PROBE_MS).unref();
  }

  /**
   * Once Redis answers: the server check and the catch-up (the database, a Redis that came back
   * empty, what was counted alone), then counting in Redis again. One at a time.
   */
  private recover(): Promise<void> {
    if (this.mode.inRedis || this.mode.isClosed) return Promise.resolve();
    const generation = this.mode.generation;
    this.running ??= this.serverCheck
      .run()
      .then(() => this.catchUp.run())
      .then(() => this.shareAgain(generation))
      .catch((error: unknown) => {
        this.lastError = errorText(error);
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Counts in Redis again unless a failure overtook the recovery, then adds what was counted alone
   * meanwhile (under load, new hits would otherwise keep the catch-up from ever ending).
   */
  private shareAgain(generation: number): Promise<void> | undefined {
    const line = `Daily counters shared in Redis at ${this.connection.address}`;
    if (!this.mode.toSharing(generation, line)) return;
    if (!this.connection.probesWhileShared) {
      clearInterval(this.probe);
      this.probe = undefined;
    }
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
    if (this.running || this.mode.isClosed) return Promise.resolve();
    const generation = this.mode.generation;
    this.running = this.catchUp
      .run()
      .then((known) => {
        if (!known || this.ledger.pendingClients > 0) return;
        const line = `Daily counters shared in Redis at ${this.connection.address} for every client again`;
        this.mode.toSharing(generation, line);
      })
      .catch(() => this.mode.toPartly('catch-up failed'))
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
