import type { LoggerService } from '@nestjs/common';
import { errorText } from '../../common/error-text';
import type { RedisCatchUp } from './redis-catch-up';
import type { RedisConnection } from './redis-connection';
import type { RedisContributionLedger } from './redis-contribution-ledger';
import type { RedisCountingMode } from './redis-counting-mode';
import { EvictingRedisError, type RedisServerCheck } from './redis-server-check';

const RECOVERY_PROBE_MS = 1_000;
const STARTUP_WAIT_MS = 1_000;

/**
 * Decides the counting mode's changes. Redis is counted in again only once the server check and
 * the catch-up have run; a failed command in a Cluster that is up affects that slot only.
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

  /** Only then does a count that did not grow mean an operator's reset (ledger.confirm). */
  get steady(): boolean {
    return this.mode.sharing && this.running === undefined && this.ledger.pendingClients === 0;
  }

  failed(error: unknown): void {
    // In a Cluster that is up, a failed command is one slot's outage: other primaries answer.
    if (this.connection.cluster?.status === 'ready') this.mode.toPartly(errorText(error));
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
    // In a Cluster the probe runs while sharing too: a failover elsewhere may have emptied keys.
    if (!this.mode.inRedis || this.connection.cluster) this.startProbing();
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
      else if (this.connection.cluster) void this.rejoin();
    }, RECOVERY_PROBE_MS).unref();
  }

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

  /** Shares first, then adds what was counted meanwhile: else, under load, it would never end. */
  private shareAgain(generation: number): Promise<void> | undefined {
    const line = `Daily counters shared in Redis at ${this.connection.address}`;
    if (!this.mode.toSharing(generation, line)) return;
    if (!this.connection.cluster) {
      clearInterval(this.probe);
      this.probe = undefined;
    }
    return this.catchUp
      .addCountedAlone()
      .catch((error: unknown) => this.fallBack(errorText(error)));
  }

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
