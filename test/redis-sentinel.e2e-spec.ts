import Redis from 'ioredis';
import { describeFailover } from '../src/testing/failover';
import { RedisSentinels, SENTINEL_NAME } from '../src/testing/redis-sentinel';

describeFailover({
  name: 'sentinel',
  tools: ['redis-server'],
  title: 'Sentinel failover under two built instances',
  killTitle:
    'kill -9 of the primary under load: no 5xx, shared again by itself, a 60-of-100 client gets 40 more',
  async start() {
    const redis = await RedisSentinels.start();
    return {
      env: { REDIS_SENTINELS: redis.addresses, REDIS_SENTINEL_NAME: SENTINEL_NAME },
      // One primary for every key, and the other server its replica.
      shardOf: async () => {
        const primary = await redis.primary();
        return { primary, replica: redis.servers.find((server) => server !== primary)! };
      },
      total: async (key) => {
        const inspect = new Redis({
          sentinels: redis.sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
          name: SENTINEL_NAME,
        });
        try {
          return await inspect.hget(key, 'total');
        } finally {
          inspect.disconnect();
        }
      },
      stop: () => redis.stop(),
    };
  },
  expectLogs(server) {
    expect(server.linesWith('is another process than before')).toBe(1);
  },
});
