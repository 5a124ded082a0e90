import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { nextClient, nextClients } from './clients';
import { health, redisHealth, todayKey } from './daily-limit';
import { depreciate } from './http';
import type { RedisServer } from './redis-server';
import { isShared, ServerProcess, startServer, untilShared } from './server-process';
import { describeWithTools } from './system-tools';
import { sleep, waitFor } from './processes';

/** The daily limit of the failover tests: a client uses 60 of it before the failover. */
const FAILOVER_LIMIT = 100;

/** Drops a primary's replication links (a frozen replica cannot come back before the kill). */
export async function cutReplicas(port: number): Promise<void> {
  const primary = new Redis(port, '127.0.0.1');
  await primary.call('CLIENT', 'KILL', 'TYPE', 'replica');
  primary.disconnect();
}

/** Two built instances on the same Redis settings, both shared. */
function startPair(env: Record<string, string>): Promise<ServerProcess[]> {
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

/** A Redis topology as the failover scenario drives it, once its servers run. */
interface FailoverRedis {
  /** The instances' Redis settings. */
  env: Record<string, string>;
  /** The primary that holds `key` now, and the replica that takes over when it dies. */
  shardOf(key: string): Promise<{ primary: RedisServer; replica: RedisServer }>;
  /** `key`'s `total` field, read through the topology (from whichever node is primary now). */
  total(key: string): Promise<string | null>;
  stop(): Promise<void>;
}

/** The killed primary's client key, its replica, and when it was killed (performance.now()). */
interface KilledPrimary {
  key: string;
  replica: RedisServer;
  killedAt: number;
}

/** One topology's part in the scenario: how it starts, and what it checks beyond the rest. */
interface FailoverTopology {
  /** As GET /health names it. */
  name: 'sentinel' | 'cluster';
  /** The programs it needs (the scenario is skipped, or fails with CI=true, without them). */
  tools: string[];
  title: string;
  /** The kill test's title: what this topology keeps during the failover. */
  killTitle: string;
  start(): Promise<FailoverRedis>;
  /** Before the load and the kill, knowing the client's shard (Cluster picks a bystander). */
  beforeKill?(shard: { primary: RedisServer }): Promise<void>;
  /** Between the kill and sharing again; resolves with a note for the result line. */
  afterKill?(servers: ServerProcess[], killed: KilledPrimary): Promise<string>;
  /** What each instance logged of the failover. */
  expectLogs(server: ServerProcess): void;
}

/**
 * The failover scenario for a topology: two built instances share its counters; the primary of a
 * client's key is killed (kill -9) under load, its replica frozen and cut off so that it misses
 * the last 10 hits. No 5xx, sharing again without help, and a client at 60 of 100 (the 10 lost
 * hits counted by the instances' catch-up) gets exactly 40 more.
 */
export function describeFailover(topology: FailoverTopology): void {
  describeWithTools(topology.tools, topology.title, () => {
    let redis: FailoverRedis;
    let servers: ServerProcess[];
    /** Stopped here too, so that a failed test leaves no loop sending. */
    let load: Load | undefined;

    beforeAll(async () => {
      redis = await topology.start();
      servers = await startPair(redis.env);
    }, 60_000);

    afterAll(async () => {
      await load?.stop();
      await Promise.all((servers ?? []).map((server) => server.stop()));
      await redis?.stop();
    }, 30_000);

    it('names the topology in /health', async () => {
      for (const server of servers)
        expect(await health(server.port)).toEqual(redisHealth(true, topology.name));
    });

    it(
      topology.killTitle,
      () => killUnderLoad(topology, redis, servers, (l) => (load = l)),
      60_000,
    );
  });
}

async function killUnderLoad(
  topology: FailoverTopology,
  redis: FailoverRedis,
  servers: ServerProcess[],
  started: (load: Load) => void,
): Promise<void> {
  const client = nextClient();
  const shard = await redis.shardOf(todayKey(client));
  await topology.beforeKill?.(shard);
  const traffic = new Load(servers);
  started(traffic);
  expect(await passedAcross(servers, 50, client)).toBe(50);
  // The replica misses the last 10 hits (frozen, its link cut): acknowledged by the primary, lost
  // with it, as asynchronous replication allows.
  shard.replica.pause();
  await cutReplicas(shard.primary.port);
  expect(await passedAcross(servers, 10, client)).toBe(10);
  const killedAt = performance.now();
  await shard.primary.kill();
  shard.replica.resume();
  const killed = { key: todayKey(client), replica: shard.replica, killedAt };
  const note = (await topology.afterKill?.(servers, killed)) ?? '';
  const sharedAfterMs = await msUntilShared(servers, killedAt);
  await traffic.stop();
  const total = await redis.total(todayKey(client));
  const more = await passedAcross(servers, FAILOVER_LIMIT, client);
  process.stderr.write(
    `${topology.name} failover: ${note}shared again ${Math.round(sharedAfterMs)} ms after kill -9; ` +
      `load ${traffic.total} answers ${JSON.stringify(traffic.statuses)}, ${traffic.failures} failures, ` +
      `slowest ${Math.round(traffic.slowestMs)} ms; total after ${total}; ${more} more passed\n`,
  );
  expect([traffic.serverErrors, traffic.failures]).toEqual([0, 0]);
  expect(total).toBe('60');
  expect(more).toBe(FAILOVER_LIMIT - 60);
  for (const server of servers) {
    expect(await health(server.port)).toEqual(redisHealth(true, topology.name));
    topology.expectLogs(server);
  }
}
