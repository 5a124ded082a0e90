import type { LoggerService } from '@nestjs/common';
import type { Clock } from '../../common/clock';
import { errorText } from '../../common/error-text';
import type { DailyLimitState } from '../daily-limit.storage';
import type { RedisCatchUp } from './redis-catch-up';
import type { RedisConnection } from './redis-connection';
import type { RedisContributionLedger } from './redis-contribution-ledger';
import { StartupRefusal } from '../../common/startup-refusal';
import type { RedisServerCheck } from './redis-server-check';

const RECOVERY_PROBE_MS = 1_000;
const STARTUP_WAIT_MS = 1_000;

/**
 * The counting mode and its changes, each logged once (docs/operations.md, "When Redis fails").
 * Redis is counted in again only once the server check and the catch-up have run.
 */
export class RedisRecovery {
  /** `partly` (a Cluster only): a failed slot's clients in memory, the others in Redis. */
  private mode: 'sharing' | 'partly' | 'alone' = 'alone';
  /** /health's `since`. Partly to alone keeps it: not every client was shared since. */
  private since: Date;
  /** Bumped on every failure, so a catch-up that a failure overtook does not share again. */
  generation = 0;
  /** Once closed (stopping, or refused at start-up), the mode no longer changes. */
  closed = false;
  /** The catch-up under way, to count in Redis again or to rejoin every slot (one at a time). */
  private running?: Promise<void>;
  private lastError = 'not connected';
  private probe?: NodeJS.Timeout;

  constructor(
    private readonly connection: RedisConnection,
    private readonly serverCheck: RedisServerCheck,
    private readonly catchUp: RedisCatchUp,
    private readonly ledger: RedisContributionLedger,
    private readonly clock: Clock,
    private readonly logger: LoggerService,
  ) {
    this.since = clock.now();
    const client = connection.client;
    client.on('ready', () => this.recover());
    client.on('close', () => this.toAlone('connection closed'));
    // ioredis reports every failed reconnection here; the fall-back logs the outage once.
    client.on('error', (error: Error) => (this.lastError = errorText(error)));
  }

  get inRedis(): boolean {
    return this.mode !== 'alone';
  }

  get sharing(): boolean {
    return this.mode === 'sharing';
  }

  /** Only then does a count that did not grow mean an operator's reset (ledger.confirm). */
  get steady(): boolean {
    return this.sharing && this.running === undefined && this.ledger.pendingClients === 0;
  }

  state(): Pick<DailyLimitState, 'counting' | 'shared' | 'since' | 'evictionPolicy'> {
    return {
      counting: this.inRedis ? 'redis' : 'memory',
      shared: this.sharing,
      since: this.since.toISOString(),
      evictionPolicy: this.serverCheck.evictionPolicy,
    };
  }

  failed(error: unknown): void {
    // In a Cluster that is up, a failed command is one slot's outage: other primaries answer.
    if (this.connection.cluster?.status === 'ready') this.toPartly(errorText(error));
    else this.toAlone(errorText(error));
  }

  /** Waits briefly for Redis so the first requests are shared; serves from memory if it is down. */
  async start(): Promise<void> {
    await this.connection.firstReady(STARTUP_WAIT_MS);
    await this.running;
    // Only before serving: an instance that meets such a Redis later goes on counting alone.
    if (this.serverCheck.refusal) {
      this.closed = true;
      this.connection.client.disconnect();
      throw new StartupRefusal(this.serverCheck.refusal);
    }
    this.serverCheck.serving = true;
    if (!this.inRedis && !this.catchUp.databaseRefused && !this.serverCheck.scriptDenied)
      this.logger.warn(
        `Redis at ${this.connection.address} unavailable at start-up (${this.lastError}): counting in this instance's memory until it is back`,
      );
    // In a Cluster the probe runs while sharing too: a failover elsewhere may have emptied keys.
    if (!this.inRedis || this.connection.cluster) this.startProbing();
  }

  /** What was counted alone reaches Redis before the instance goes, if Redis answers. */
  async stop(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    const client = this.connection.client;
    if (client.status === 'ready') await this.catchUp.addCountedAlone().catch(() => undefined);
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  }

  /** A failure of every client's Redis: counting alone, and probing until it is back. */
  toAlone(reason: string): void {
    this.generation += 1;
    if (!this.inRedis || this.closed) return;
    if (this.sharing) this.since = this.clock.now();
    this.mode = 'alone';
    this.logger.warn(
      `Redis at ${this.connection.address} unavailable (${reason}): counting in this instance's memory until it is back`,
    );
    this.startProbing();
  }

  toPartly(reason: string): void {
    this.generation += 1;
    if (!this.sharing || this.closed) return;
    this.mode = 'partly';
    this.since = this.clock.now();
    this.logger.warn(
      `Redis at ${this.connection.address} unavailable for some clients (${reason}): counting them in this instance's memory until their slots answer`,
    );
  }

  /** `generation`: taken when the catch-up began. */
  toSharing(generation: number, line: string): boolean {
    if (generation !== this.generation || this.closed || this.sharing) return false;
    this.mode = 'sharing';
    this.since = this.clock.now();
    this.logger.log(line);
    return true;
  }

  private startProbing(): void {
    this.probe ??= setInterval(() => {
      if (this.connection.client.status !== 'ready') return;
      if (!this.inRedis) this.recover();
      else if (this.connection.cluster) this.rejoin();
    }, RECOVERY_PROBE_MS).unref();
  }

  private recover(): void {
    if (this.inRedis || this.closed) return;
    const generation = this.generation;
    this.running ??= this.serverCheck
      .run()
      .then(() => this.catchUp.run())
      .then(() => this.shareAgain(generation))
      .catch((error: unknown) => {
        this.lastError = errorText(error);
      })
      .finally(() => (this.running = undefined));
  }

  /** Shares first, then adds what was counted meanwhile: else, under load, it would never end. */
  private shareAgain(generation: number): Promise<void> | undefined {
    const line = `Daily counters shared in Redis at ${this.connection.address}`;
    if (!this.toSharing(generation, line)) return;
    if (!this.connection.cluster) {
      clearInterval(this.probe);
      this.probe = undefined;
    }
    return this.catchUp.addCountedAlone().catch((error: unknown) => this.toAlone(errorText(error)));
  }

  private rejoin(): void {
    if (this.running || this.closed) return;
    const generation = this.generation;
    this.running = this.catchUp
      .run()
      .then((known) => {
        if (!known || this.ledger.pendingClients > 0) return;
        const line = `Daily counters shared in Redis at ${this.connection.address} for every client again`;
        this.toSharing(generation, line);
      })
      .catch(() => this.toPartly('catch-up failed'))
      .finally(() => (this.running = undefined));
  }
}
