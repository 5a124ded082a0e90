import calculateSlot from 'cluster-key-slot';
import Redis, { Cluster } from 'ioredis';
import type { RedisTopology } from '../../config/redis-topology';

/** An error Redis answered with (ioredis's ReplyError): the server is there and refused a command. */
export const isReplyError = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ReplyError';

/** A node by its address, `host:port`, as ioredis names a Cluster's nodes in its slot table. */
export const nodeName = (node: Redis): string => `${node.options.host}:${node.options.port}`;

/** A client and the topology it was made for (config/redis-topology.ts decides which). */
export type RedisEndpoint =
  { topology: 'standalone' | 'sentinel'; client: Redis } | { topology: 'cluster'; client: Cluster };

/**
 * The store's connection to its counters, made once with its topology: the one place that knows
 * whether it talks to one server (directly or found by Sentinel) or to a Cluster. The store's
 * parts ask it their topology questions instead of looking at the client.
 */
export class RedisConnection {
  constructor(
    private readonly endpoint: RedisEndpoint,
    /** Where it counts, for logs (never a password). */
    readonly address: string,
  ) {}

  get client(): Redis | Cluster {
    return this.endpoint.client;
  }

  /** GET /health names it. */
  get topology(): RedisTopology {
    return this.endpoint.topology;
  }

  /** The Cluster, or undefined with one server. */
  get cluster(): Cluster | undefined {
    return this.endpoint.topology === 'cluster' ? this.endpoint.client : undefined;
  }

  /**
   * Whether a command that just failed is one slot's outage rather than the whole instance's: in
   * a Cluster that is up, the other slots' primaries still answer.
   */
  get slotOutage(): boolean {
    return this.cluster?.status === 'ready';
  }

  /**
   * Whether the recovery probe keeps running while the store counts in Redis: in a Cluster, a
   * failover elsewhere may have emptied keys seen here.
   */
  get probesWhileShared(): boolean {
    return this.cluster !== undefined;
  }

  /** The database to select before counting (a Cluster has database 0 only). */
  get database(): number {
    return this.endpoint.topology === 'cluster' ? 0 : (this.endpoint.client.options.db ?? 0);
  }

  /** The connections to every primary: the one server, or each master node of a Cluster. */
  primaries(): Redis[] {
    const { endpoint } = this;
    return endpoint.topology === 'cluster' ? endpoint.client.nodes('master') : [endpoint.client];
  }

  /** A primary, for logs: a Cluster's node by its address; one server by the address given. */
  nameOf(primary: Redis): string {
    return this.cluster ? nodeName(primary) : this.address;
  }

  /**
   * The Cluster slot of `key`, by cluster-key-slot, which ioredis routes commands with. It reads
   * `a{}{b}` by its second tag where Redis hashes the whole key (an empty first tag); the store's
   * keys (a date and an address, a /64 or `unknown`) have no braces, so they map as in Redis.
   */
  slotOf(key: string): number {
    return calculateSlot(key);
  }

  /**
   * `command`, or a rejection once the client's command timeout has passed since now. With
   * automatic pipelining (one server), ioredis sends one pipeline at a time: a command issued while
   * a frozen Redis holds the previous one waits for that one's timeout before its own starts
   * (twice the timeout in all). This bounds the wait from the moment of asking; the command itself
   * may still reach Redis. A Cluster has no automatic pipelining: ioredis's own bound holds.
   */
  withinCommandTimeout<T>(command: Promise<T>): Promise<T> {
    if (this.endpoint.topology === 'cluster') return command;
    let timer: NodeJS.Timeout | undefined;
    const timeout = this.endpoint.client.options.commandTimeout;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('Command timed out')), timeout);
    });
    return Promise.race([command, deadline]).finally(() => clearTimeout(timer));
  }

  /**
   * Until the connection is ready, fails, or `waitMs` pass. A refusal during the handshake (a
   * database Redis refuses) is not a failure to connect: 'ready' follows.
   */
  firstReady(waitMs: number): Promise<void> {
    const client = this.endpoint.client;
    if (client.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        client.off('ready', done).off('error', failed);
        resolve();
      };
      const failed = (error: Error) => !isReplyError(error) && done();
      const timer = setTimeout(done, waitMs);
      client.on('ready', done).on('error', failed);
    });
  }
}
