import Redis from 'ioredis';
import { nextClients } from './clients';
import { depreciate } from './http';
import { isShared, ServerProcess, startServer, untilShared } from './server-process';
import { sleep, waitFor } from '../../src/testing/processes';

/** The daily limit of the failover tests: a client uses 60 of it before the failover. */
export const FAILOVER_LIMIT = 100;

/** Drops a primary's replication links (a frozen replica cannot come back before the kill). */
export async function cutReplicas(port: number): Promise<void> {
  const primary = new Redis(port, '127.0.0.1');
  await primary.call('CLIENT', 'KILL', 'TYPE', 'replica');
  primary.disconnect();
}

/** Two built instances on the same Redis settings, both shared. */
export function startPair(env: Record<string, string>): Promise<ServerProcess[]> {
  const start = () =>
    startServer({
      RATE_LIMIT_PER_DAY: String(FAILOVER_LIMIT),
      LOG_LEVEL: 'info', // the return to shared counting is logged at info
      NO_COLOR: '1',
      ...env,
    }).then(untilShared);
  return Promise.all([start(), start()]);
}

/** `count` requests from `from`, alternating between the instances: how many got a 200. */
export async function passedAcross(
  servers: ServerProcess[],
  count: number,
  from: string,
): Promise<number> {
  let passed = 0;
  for (let i = 0; i < count; i++) {
    const answer = await depreciate(servers[i % servers.length].port, { from });
    if (answer.status === 200) passed += 1;
  }
  return passed;
}

/** Waits until every instance's /health says ok; the ms since `since` (performance.now()). */
export async function msUntilShared(
  servers: ServerProcess[],
  since: number,
  timeoutMs = 20_000,
): Promise<number> {
  const all = async () => (await Promise.all(servers.map(isShared))).every(Boolean);
  await waitFor('every instance to share again', all, timeoutMs, 25);
  return performance.now() - since;
}

/**
 * Many clients at once: `workers` loops, each sending to the instances in turn from the next of
 * 250 addresses of its own (nextClients), so keys spread over every Cluster slot range.
 * Counts answers by status, and failures to get one (a reset, a refused connection).
 */
export class Load {
  readonly statuses: Record<number, number> = {};
  failures = 0;
  slowestMs = 0;
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(servers: ServerProcess[], workers = 8) {
    this.loops = Array.from({ length: workers }, () => this.loop(servers));
  }

  get total(): number {
    return Object.values(this.statuses).reduce((sum, n) => sum + n, 0);
  }

  /** Answers with a 5xx status. */
  get serverErrors(): number {
    return Object.entries(this.statuses)
      .filter(([status]) => Number(status) >= 500)
      .reduce((sum, [, n]) => sum + n, 0);
  }

  async stop(): Promise<this> {
    this.running = false;
    await Promise.all(this.loops);
    return this;
  }

  private async loop(servers: ServerProcess[]): Promise<void> {
    const addresses = nextClients(250);
    for (let i = 0; this.running; i++) {
      const from = addresses[i % addresses.length];
      try {
        const answer = await depreciate(servers[i % servers.length].port, { from });
        this.statuses[answer.status] = (this.statuses[answer.status] ?? 0) + 1;
        this.slowestMs = Math.max(this.slowestMs, answer.ms);
      } catch {
        this.failures += 1;
        await sleep(10); // an instance gone: count it, without spinning
      }
    }
  }
}
