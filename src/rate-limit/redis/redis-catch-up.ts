import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import type { LoggerService } from '@nestjs/common';
import type { RedisContributionLedger } from './redis-contribution-ledger';
import type { CountedInstant } from '../daily-limit.storage';
import type { RedisDailyCounter } from './redis-daily-count-script';
import { isReplyError, nodeName, type RedisConnection } from './redis-connection';
import { errorText } from '../../common/error-text';

/** Commands in flight at once during a catch-up: each touches one key, none spans slots. */
const BATCH = 1_000;

const runIdOf = (info: string): string | undefined => /run_id:(\w+)/.exec(info)?.[1];

/**
 * Before counting in Redis again: the configured database (never another), today's contributions
 * re-added where Redis came back empty, then the hits counted alone ("today": `countedAt`'s day).
 */
export class RedisCatchUp {
  databaseRefused = false;
  private announced?: string;
  private runId?: string;
  private slotOwners: (string | undefined)[] = [];

  constructor(
    private readonly connection: RedisConnection,
    private readonly ledger: RedisContributionLedger,
    private readonly counter: RedisDailyCounter,
    private readonly countedAt: () => CountedInstant,
    private readonly logger: LoggerService,
  ) {}

  /**
   * Rejects when the store must go on counting alone. Safe to run again: the new process is
   * recorded only once all is added. Resolves false while a Cluster slot's process is unknown.
   */
  async run(): Promise<boolean> {
    await this.selectDatabase();
    const identity = await this.checkIdentity();
    if (identity.changed) await this.readdToday(identity.changed, identity.label);
    await this.addCountedAlone();
    identity.commit();
    return identity.known;
  }

  async addCountedAlone(): Promise<void> {
    const taken = this.ledger.takeAlone();
    const failed: typeof taken = [];
    for (let i = 0; i < taken.length; i += BATCH) {
      const batch = taken.slice(i, i + BATCH);
      const at = this.countedAt();
      const results = await Promise.allSettled(
        batch.map(([, { client, hits, day }]) => this.counter.addAlone(client, hits, day, at)),
      );
      failed.push(...batch.filter((_, j) => results[j].status === 'rejected'));
    }
    this.ledger.putBack(failed);
    if (failed.length > 0) throw new Error(`${failed.length} catch-up additions failed`);
  }

  private async selectDatabase(): Promise<void> {
    const { endpoint } = this.connection;
    // A Cluster has database 0 only.
    const database = endpoint.topology === 'cluster' ? 0 : (endpoint.client.options.db ?? 0);
    if (database === 0) return;
    try {
      await this.connection.client.select(database);
      this.databaseRefused = false;
    } catch (error) {
      if (isReplyError(error) && !this.databaseRefused) {
        this.databaseRefused = true;
        this.logger.warn(
          `Redis at ${this.connection.address} refuses database ${database} (${errorText(error)}): counting in this instance's memory, never in another database, until it takes it`,
        );
      }
      throw error;
    }
  }

  private async readdToday(changed: (key: string) => boolean, label: string): Promise<void> {
    const at = this.countedAt();
    if (label !== this.announced) {
      this.announced = label;
      this.logger.warn(
        `Redis at ${this.connection.address} is another process than before (${label}): re-adding what this instance counted today for ${this.connection.cluster ? 'the clients of those slots' : `${this.ledger.clients} clients`}`,
      );
    }
    for (const batch of this.ledger.today(at.day, BATCH, changed)) {
      const results = await Promise.allSettled(
        batch.map((client) => this.counter.readd(client, at)),
      );
      const failed = results.filter((result) => result.status === 'rejected');
      if (failed.length > 0) throw new Error(`${failed.length} re-additions failed`);
    }
  }

  /**
   * The keys Redis gave back empty (`changed`; undefined: none), recorded by `commit`: INFO's run_id
   * changes on a restart or a promoted replica, not on an operator's DEL. In a Cluster, per slot's
   * primary, so a failover re-adds its slots only.
   */
  private async checkIdentity() {
    const cluster = this.connection.cluster;
    if (cluster) return this.checkCluster(cluster);
    const runId = runIdOf(await this.connection.client.info('server'));
    return {
      changed: this.runId !== undefined && runId !== this.runId ? () => true : undefined,
      label: `run_id ${runId}`,
      known: true,
      commit: () => (this.runId = runId),
    };
  }

  private async checkCluster(cluster: Cluster) {
    const runIds = new Map<string, string>();
    await Promise.all(
      cluster.nodes('master').map(async (node) => {
        const runId = runIdOf(await node.info('server').catch(() => ''));
        if (runId) runIds.set(nodeName(node), runId);
      }),
    );
    const owners = cluster.slots.map((nodes) => {
      const runId = runIds.get(nodes?.[0]);
      return runId && `${nodes[0]} run_id ${runId}`;
    });
    const changedSlot = owners.map((owner, slot) => {
      const before = this.slotOwners[slot];
      return owner !== undefined && before !== undefined && owner !== before;
    });
    const moved = owners.filter((_, slot) => changedSlot[slot]);
    return {
      // cluster-key-slot (ioredis's routing) reads `a{}{b}` by its second tag where Redis hashes
      // the whole key; the store's keys have no braces, so they map as in Redis.
      changed: moved.length > 0 ? (key: string) => changedSlot[calculateSlot(key)] : undefined,
      label: `${moved.length} slots now on ${[...new Set(moved)].join(', ')}`,
      known: owners.every((owner) => owner !== undefined),
      commit: () => owners.forEach((owner, slot) => owner && (this.slotOwners[slot] = owner)),
    };
  }
}
