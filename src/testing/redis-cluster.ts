import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort, RunningProcess, waitFor } from './processes';
import { RedisServer } from './redis-server';

/** How long cluster nodes wait before they call a silent node failing (the tests' failover). */
const NODE_TIMEOUT_MS = 1_000;

/**
 * A Redis Cluster of three primaries with a replica each, real redis-server processes on loopback
 * joined by `redis-cli --cluster create`, as docs/operations.md ("High availability") starts it.
 * `cluster-require-full-coverage no`: a primary down stops its own slots only, not the cluster.
 */
export class RedisCluster {
  private constructor(
    readonly nodes: RedisServer[],
    private readonly folder: string,
  ) {}

  static async start(): Promise<RedisCluster> {
    const folder = mkdtempSync(join(tmpdir(), 'cluster-'));
    const nodes = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async () => {
        const port = await freePort();
        return RedisServer.start(
          [
            `--dir ${folder}`, // where a replica writes the full sync it receives
            '--cluster-enabled yes',
            `--cluster-config-file ${join(folder, `nodes-${port}.conf`)}`,
            `--cluster-node-timeout ${NODE_TIMEOUT_MS}`,
            '--cluster-require-full-coverage no',
          ].flatMap((option) => option.split(' ')),
          { port },
        );
      }),
    );
    const cluster = new RedisCluster(nodes, folder);
    const create = RunningProcess.start('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    const { code } = await create.exited;
    if (code !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.output}`);
    await cluster.untilOk();
    return cluster;
  }

  /** REDIS_CLUSTER_NODES: two seed nodes are enough (ioredis learns the rest). */
  get seeds(): string {
    return this.nodes
      .slice(0, 2)
      .map((node) => `127.0.0.1:${node.port}`)
      .join(',');
  }

  /** The processes serving `key`'s slot now: its primary and its replica. */
  async shardOf(key: string): Promise<{ primary: RedisServer; replica: RedisServer }> {
    const alive = this.nodes.find((node) => !node.hasExited)!;
    const client = new Redis(alive.port, '127.0.0.1');
    try {
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
      type Range = [number, number, ...[string, number][]];
      const ranges = (await client.call('CLUSTER', 'SLOTS')) as Range[];
      const [, , [, primary], replica] = ranges.find(([from, to]) => from <= slot && slot <= to)!;
      const byPort = (port?: number) => this.nodes.find((node) => node.port === port)!;
      return { primary: byPort(primary), replica: byPort(replica?.[1]) };
    } finally {
      client.disconnect();
    }
  }

  /** Until every node says cluster_state:ok and every primary has its replica. */
  async untilOk(timeoutMs = 20_000): Promise<void> {
    const clients = this.nodes
      .filter((node) => !node.hasExited)
      .map((node) => new Redis(node.port, '127.0.0.1'));
    const ok = async () => {
      const states = await Promise.all(clients.map((client) => client.call('CLUSTER', 'INFO')));
      const ranges = (await clients[0].call('CLUSTER', 'SLOTS')) as unknown[][];
      return (
        states.every((state) => String(state).includes('cluster_state:ok')) &&
        ranges.every((range) => range.length >= 4)
      );
    };
    try {
      await waitFor('the cluster to be ok', ok, timeoutMs, 200);
    } finally {
      clients.forEach((client) => client.disconnect());
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
    rmSync(this.folder, { recursive: true, force: true });
  }
}
