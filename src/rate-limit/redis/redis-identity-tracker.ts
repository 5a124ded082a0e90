import type { Cluster } from 'ioredis';
import { nodeName, type RedisConnection } from './redis-connection';

const runIdOf = (info: string): string | undefined => /run_id:(\w+)/.exec(info)?.[1];

/** Which keys now live on another Redis process than at the last check; `commit` records it. */
export interface IdentityCheck {
  /** Keys whose server changed (came back empty: a restart or a failover); undefined: none. */
  changed?: (key: string) => boolean;
  label: string;
  everyKey: boolean;
  /** In a Cluster, false while a slot's primary is unknown: what was added there may be missing. */
  known: boolean;
  commit(): void;
}

/**
 * Tells when Redis came back empty: INFO's run_id changes on a restart or a promoted replica, not
 * on an operator's DEL. In a Cluster, per slot's primary, so a failover re-adds its slots only.
 */
export class RedisIdentityTracker {
  private runId?: string;
  private slotOwners: (string | undefined)[] = [];

  constructor(private readonly connection: RedisConnection) {}

  async check(): Promise<IdentityCheck> {
    const cluster = this.connection.cluster;
    if (cluster) return this.checkCluster(cluster);
    const runId = runIdOf(await this.connection.client.info('server'));
    const changed = this.runId !== undefined && runId !== this.runId;
    return {
      changed: changed ? () => true : undefined,
      label: `run_id ${runId}`,
      everyKey: true,
      known: true,
      commit: () => (this.runId = runId),
    };
  }

  private async checkCluster(cluster: Cluster): Promise<IdentityCheck> {
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
    const changedSlots = new Set<number>();
    owners.forEach((owner, slot) => {
      const before = this.slotOwners[slot];
      if (owner !== undefined && before !== undefined && owner !== before) changedSlots.add(slot);
    });
    const moved = [...new Set([...changedSlots].map((slot) => owners[slot]))];
    return {
      changed:
        changedSlots.size > 0 ? (key) => changedSlots.has(this.connection.slotOf(key)) : undefined,
      label: `${changedSlots.size} slots now on ${moved.join(', ')}`,
      everyKey: false,
      known: owners.every((owner) => owner !== undefined),
      commit: () => owners.forEach((owner, slot) => owner && (this.slotOwners[slot] = owner)),
    };
  }
}
