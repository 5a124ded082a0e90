import type { Cluster } from 'ioredis';
import { nodeName, type RedisConnection } from './redis-connection';

const runIdOf = (info: string): string | undefined => /run_id:(\w+)/.exec(info)?.[1];

/** Which keys now live on another Redis process than at the last check; `commit` records it. */
export interface IdentityCheck {
  /** Keys whose server changed (came back empty: a restart or a failover); undefined: none. */
  changed?: (key: string) => boolean;
  /** The new process(es), for the log. */
  label: string;
  /** Whether every key changed (one server), not only some slots' keys. */
  everyKey: boolean;
  /**
   * Whether the process holding every key is known now. In a Cluster, a slot whose primary did not
   * answer (dead, or not yet known as a primary after a failover) may still change: until it is
   * known, what this instance added to it may be missing.
   */
  known: boolean;
  commit(): void;
}

/**
 * Tells when Redis "came back empty": the process holding a key is not the one that held it at
 * the last check (INFO server's run_id, which a restart or a promoted replica changes, and an
 * operator's DEL does not). One server (directly or through Sentinel): its run_id. A Cluster: the
 * run_id of each slot's primary, asked of that primary, so a failover of one primary re-adds the
 * keys of its slots only. A primary that does not answer keeps the slots' last known process.
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
