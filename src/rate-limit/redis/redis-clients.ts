import type { Cluster, default as Redis, RedisOptions } from 'ioredis';
import { parseRedisNodes, redisTopology, type RedisSettings } from '../../config/redis-topology';
import { DAILY_COUNT_LUA } from './redis-daily-count-script';
import { RedisConnection } from './redis-connection';

/** Loaded on first use (require caches it): the in-memory store never pays its ~50 ms start-up. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
const loadIoredis = () => require('ioredis') as typeof import('ioredis');

const SCRIPTS = { dailyCount: { lua: DAILY_COUNT_LUA, numberOfKeys: 1 } };

/**
 * So that a request never waits for Redis: no offline queue, a bounded reply time, no retries.
 * READONLY (a primary demoted while connected) drops the connection to reach the new primary.
 */
const neverWait = (commandTimeout: number) =>
  ({
    commandTimeout,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    reconnectOnError: (error: Error) => error.message.startsWith('READONLY'),
  }) satisfies RedisOptions;

const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1_000);

/** Automatic pipelining: under load, redis-server spends less than half the CPU per request. */
const oneServer = (commandTimeout: number) =>
  ({
    ...neverWait(commandTimeout),
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    retryStrategy,
    scripts: SCRIPTS,
  }) satisfies RedisOptions;

/** A client for one server at `url` (valid: environment.ts checks its database number). */
export function createRedisClient(url: string, commandTimeout: number): Redis {
  return new (loadIoredis().default)(url, oneServer(commandTimeout));
}

const nodesOf = (list: string) => parseRedisNodes(list) ?? [];

/** `nodeAuth`: the data nodes' credentials and TLS (REDIS_URL carries its own). */
function clusterClient(settings: RedisSettings, nodeAuth: object): Cluster {
  return new (loadIoredis().Cluster)(nodesOf(settings.REDIS_CLUSTER_NODES), {
    redisOptions: { ...neverWait(settings.REDIS_COMMAND_TIMEOUT_MS), ...nodeAuth },
    enableOfflineQueue: false,
    // Off: once slots move, ioredis resends a pipeline lost with its primary, even a command that
    // timed out and was counted in memory: a double count (test/redis-cluster.e2e-spec.ts).
    enableAutoPipelining: false,
    clusterRetryStrategy: retryStrategy,
    // A dead primary's slot is retried once the slots refresh, in the timeout; else counted alone.
    retryDelayOnFailover: 50,
    retryDelayOnClusterDown: 50,
    slotsRefreshTimeout: 500,
    scripts: SCRIPTS,
  });
}

export function connectRedis(settings: RedisSettings): RedisConnection {
  // ioredis treats '' as no username or password (Redis.js, SentinelConnector).
  const nodeAuth = {
    username: settings.REDIS_USERNAME,
    password: settings.REDIS_PASSWORD,
    tls: settings.REDIS_TLS ? {} : undefined,
  };
  switch (redisTopology(settings)) {
    case 'standalone': {
      const client = createRedisClient(settings.REDIS_URL, settings.REDIS_COMMAND_TIMEOUT_MS);
      const { hostname, port } = new URL(settings.REDIS_URL);
      return new RedisConnection({ topology: 'standalone', client }, `${hostname}:${port || 6379}`);
    }
    case 'sentinel': {
      const client = new (loadIoredis().default)({
        ...oneServer(settings.REDIS_COMMAND_TIMEOUT_MS),
        ...nodeAuth,
        sentinels: nodesOf(settings.REDIS_SENTINELS),
        name: settings.REDIS_SENTINEL_NAME,
        sentinelUsername: settings.REDIS_SENTINEL_USERNAME,
        sentinelPassword: settings.REDIS_SENTINEL_PASSWORD,
        sentinelTLS: settings.REDIS_SENTINEL_TLS ? {} : undefined,
        // Without it ioredis ignores `tls` for the primary found through Sentinel.
        enableTLSForSentinelMode: settings.REDIS_TLS,
        sentinelCommandTimeout: 500,
      });
      const address = `Sentinel ${settings.REDIS_SENTINEL_NAME} (${settings.REDIS_SENTINELS})`;
      return new RedisConnection({ topology: 'sentinel', client }, address);
    }
    case 'cluster': {
      const client = clusterClient(settings, nodeAuth);
      const address = `Cluster ${settings.REDIS_CLUSTER_NODES}`;
      return new RedisConnection({ topology: 'cluster', client }, address);
    }
  }
}
