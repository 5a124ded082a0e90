import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { nextClient } from './helpers/clients';
import { health, redisHealth, todayKey } from './helpers/daily-limit';
import {
  cutReplicas,
  FAILOVER_LIMIT,
  Load,
  msUntilShared,
  passedAcross,
  startPair,
} from './helpers/failover';
import { RedisSentinels, SENTINEL_NAME } from './redis-sentinel.helpers';
import { ServerProcess } from './helpers/server-process';
import { describeWithTools } from './helpers/system-tools';

describeWithTools(['redis-server'], 'Sentinel failover under two built instances', () => {
  let redis: RedisSentinels;
  let servers: ServerProcess[];
  /** Stopped here too, so that a failed test leaves no loop sending. */
  let load: Load | undefined;

  beforeAll(async () => {
    redis = await RedisSentinels.start();
    servers = await startPair({
      REDIS_SENTINELS: redis.addresses,
      REDIS_SENTINEL_NAME: SENTINEL_NAME,
    });
  }, 60_000);

  afterAll(async () => {
    await load?.stop();
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await redis?.stop();
  }, 30_000);

  it('names the topology in /health', async () => {
    for (const server of servers)
      expect(await health(server.port)).toEqual(redisHealth(true, 'sentinel'));
  });

  it('kill -9 of the primary under load: no 5xx, shared again by itself, a 60-of-100 client gets 40 more', async () => {
    const client = nextClient();
    const traffic = new Load(servers);
    load = traffic;
    expect(await passedAcross(servers, 50, client)).toBe(50);
    // The replica misses the last 10 hits (frozen, its link cut): acknowledged by the
    // primary, lost with it, as asynchronous replication allows.
    const primary = await redis.primary();
    const standby = redis.servers.find((server) => server !== primary)!;
    standby.pause();
    await cutReplicas(primary.port);
    expect(await passedAcross(servers, 10, client)).toBe(10);
    const killedAt = performance.now();
    await primary.kill();
    standby.resume();

    const sharedAfterMs = await msUntilShared(servers, killedAt);
    await traffic.stop();
    const inspect = new Redis({
      sentinels: redis.sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
      name: SENTINEL_NAME,
    });
    const total = await inspect.hget(todayKey(client), 'total');
    inspect.disconnect();
    const more = await passedAcross(servers, FAILOVER_LIMIT, client);
    process.stderr.write(
      `sentinel failover: shared again ${Math.round(sharedAfterMs)} ms after kill -9; ` +
        `load ${traffic.total} answers ${JSON.stringify(traffic.statuses)}, ${traffic.failures} failures, ` +
        `slowest ${Math.round(traffic.slowestMs)} ms; total after ${total}; ${more} more passed\n`,
    );
    expect([traffic.serverErrors, traffic.failures]).toEqual([0, 0]);
    expect(total).toBe('60');
    expect(more).toBe(FAILOVER_LIMIT - 60);
    for (const server of servers) {
      expect(await health(server.port)).toEqual(redisHealth(true, 'sentinel'));
      expect(server.linesWith('is another process than before')).toBe(1);
    }
  }, 60_000);
});
