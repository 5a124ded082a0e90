import type Redis from 'ioredis';
import { freePort, RunningProcess, waitFor } from './processes';
import { RawConnection } from './raw-http';

/** Whether something on 127.0.0.1:port answers a Redis PING. */
async function answersPing(port: number): Promise<boolean> {
  const connection = new RawConnection({ port });
  try {
    await connection.write('PING\r\n');
    await connection.until((data) => data.includes('\r\n'), 500);
    return connection.received.toString().startsWith('+PONG');
  } catch {
    return false;
  } finally {
    connection.close();
  }
}

/**
 * A real redis-server on a free loopback port, without persistence (a restart empties it, as a
 * crash of a cache would). `restart()` starts it again on the same port. `args` come after the
 * defaults (a replica's `--replicaof`, a cluster node's settings); `config`, a file written
 * beforehand, comes first (a sentinel's, which Sentinel rewrites).
 */
export class RedisServer {
  private process?: RunningProcess;

  private constructor(
    readonly port: number,
    private readonly args: string[],
    private readonly config?: string,
  ) {}

  static async start(
    args: string[] = [],
    { port, config }: { port?: number; config?: string } = {},
  ): Promise<RedisServer> {
    const server = new RedisServer(port ?? (await freePort()), args, config);
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    const args = [
      ...(this.config ? [this.config] : []),
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      ...this.args,
    ];
    const child = RunningProcess.start('redis-server', args);
    this.process = child;
    await child.until(`redis-server on port ${this.port}`, () => answersPing(this.port), 5_000);
  }

  get hasExited(): boolean {
    return this.process?.hasExited ?? true;
  }

  /** Kills it without warning (SIGKILL): clients see the connection drop. */
  async kill(): Promise<void> {
    await this.process?.kill();
  }

  /** Freezes it (SIGSTOP): connections stay open, replies stop coming. */
  pause(): void {
    this.process?.signal('SIGSTOP');
  }

  resume(): void {
    this.process?.signal('SIGCONT');
  }

  async stop(): Promise<void> {
    this.resume();
    await this.process?.stop();
  }
}

/** How many times `redis` has been sent `command`, refused ones included (INFO commandstats). */
async function callsOf(redis: Redis, command: string): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

/**
 * Waits until `redis` has been sent `command` twice more: a store's probe has asked again, and
 * (its probes running one at a time) what it made of the first answer is done.
 */
export async function untilAskedTwiceMore(redis: Redis, command: string): Promise<void> {
  const calls = await callsOf(redis, command);
  await waitFor(
    `${command} sent twice more`,
    async () => (await callsOf(redis, command)) >= calls + 2,
  );
}
