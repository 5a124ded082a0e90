import Redis, { Cluster } from 'ioredis';

/** ioredis's ReplyError: the server is there and refused a command. */
export const isReplyError = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ReplyError';

/** `host:port`, as ioredis names a Cluster's nodes in its slot table. */
export const nodeName = (node: Redis): string => `${node.options.host}:${node.options.port}`;

type RedisEndpoint =
  { topology: 'standalone' | 'sentinel'; client: Redis } | { topology: 'cluster'; client: Cluster };

/** The one place that knows the topology: the store's parts ask it, not the client. */
export class RedisConnection {
  constructor(
    readonly endpoint: RedisEndpoint,
    /** Where it counts, for logs (never a password). */
    readonly address: string,
  ) {}

  get client(): Redis | Cluster {
    return this.endpoint.client;
  }

  get cluster(): Cluster | undefined {
    return this.endpoint.topology === 'cluster' ? this.endpoint.client : undefined;
  }

  primaries(): Redis[] {
    const { endpoint } = this;
    return endpoint.topology === 'cluster' ? endpoint.client.nodes('master') : [endpoint.client];
  }

  nameOf(primary: Redis): string {
    return this.cluster ? nodeName(primary) : this.address;
  }

  /**
   * Auto-pipelining lets a command behind a frozen Redis wait twice the timeout: this bounds it
   * from the call (it may still reach Redis). A Cluster does not auto-pipeline.
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

  /** A refusal in the handshake (a database Redis refuses) is not a failure: 'ready' follows. */
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
