import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort, waitFor } from './processes';
import { RedisServer } from './redis-server';

/** The group name the sentinels monitor (REDIS_SENTINEL_NAME). */
export const SENTINEL_NAME = 'main';
/** How long the sentinels wait before they call a silent primary down (the tests' failover). */
const DOWN_AFTER_MS = 1_000;

/**
 * A primary, a replica and three sentinels (quorum 2), all real redis-server processes on
 * loopback, as docs/operations.md ("High availability") starts them. Sentinel rewrites its
 * configuration file, so each gets one in a temporary folder.
 */
export class RedisSentinels {
  private constructor(
    readonly servers: RedisServer[],
    readonly sentinels: RedisServer[],
    private readonly folder: string,
  ) {}

  static async start(): Promise<RedisSentinels> {
    const folder = mkdtempSync(join(tmpdir(), 'sentinels-'));
    // A replica writes the full sync it receives to its folder: a temporary one, not ours.
    const dir = ['--dir', folder];
    const primary = await RedisServer.start(dir);
    const replica = await RedisServer.start([
      ...dir,
      '--replicaof',
      '127.0.0.1',
      `${primary.port}`,
    ]);
    const sentinels = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const port = await freePort();
        const config = join(folder, `sentinel-${i}.conf`);
        writeFileSync(
          config,
          [
            `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primary.port} 2`,
            `sentinel down-after-milliseconds ${SENTINEL_NAME} ${DOWN_AFTER_MS}`,
            `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
            '',
          ].join('\n'),
        );
        return RedisServer.start(['--sentinel'], { port, config });
      }),
    );
    const set = new RedisSentinels([primary, replica], sentinels, folder);
    await set.untilReplicated();
    return set;
  }

  /** REDIS_SENTINELS for these sentinels. */
  get addresses(): string {
    return this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(',');
  }

  /** The primary's port, as the first sentinel reports it. */
  async primaryPort(): Promise<number> {
    const sentinel = new Redis(this.sentinels[0].port, '127.0.0.1');
    try {
      const [, port] = (await sentinel.call(
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        SENTINEL_NAME,
      )) as string[];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  }

  /** The process serving as primary now. */
  async primary(): Promise<RedisServer> {
    const port = await this.primaryPort();
    return this.servers.find((server) => server.port === port)!;
  }

  /** Until the replica is in sync and every sentinel knows the other two and the replica. */
  private async untilReplicated(): Promise<void> {
    const replica = new Redis(this.servers[1].port, '127.0.0.1');
    const sentinel = new Redis(this.sentinels[0].port, '127.0.0.1');
    try {
      await waitFor(
        'the replica to sync and the sentinels to meet',
        async () => {
          const link = /master_link_status:up/.test(await replica.info('replication'));
          const master = (await sentinel.call('SENTINEL', 'MASTER', SENTINEL_NAME)) as string[];
          const field = (name: string) => Number(master[master.indexOf(name) + 1]);
          return link && field('num-other-sentinels') === 2 && field('num-slaves') === 1;
        },
        15_000,
        200,
      );
    } finally {
      replica.disconnect();
      sentinel.disconnect();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.servers].map((server) => server.stop()));
    rmSync(this.folder, { recursive: true, force: true });
  }
}
