import type { Cluster, default as Redis, RedisOptions } from 'ioredis';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS, type RedisSettings } from '../../config/environment';
import {
  parseRedisNodes,
  RedisNode,
  RedisTopology,
  redisTopology,
} from '../../config/redis-topology';
import { DAILY_COUNT_LUA } from './redis-daily-count-script';
import { RedisConnection, RedisEndpoint } from './redis-connection';

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
export function createRedisClient(
  url: string,
  commandTimeout = DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
): Redis {
  return new (loadIoredis().default)(url, oneServer(commandTimeout));
}

const nodesOf = (list: string): RedisNode[] => parseRedisNodes(list) ?? [];
const orUndefined = (value: string) => (value === '' ? undefined : value);

/** The data nodes' credentials and TLS with Sentinel or Cluster (REDIS_URL carries its own). */
const nodeAuth = (settings: RedisSettings) => ({
  username: orUndefined(settings.REDIS_USERNAME),
  password: orUndefined(settings.REDIS_PASSWORD),
  tls: settings.REDIS_TLS ? {} : undefined,
});

function sentinelClient(settings: RedisSettings): Redis {
  return new (loadIoredis().default)({
    ...oneServer(settings.REDIS_COMMAND_TIMEOUT_MS),
    ...nodeAuth(settings),
    sentinels: nodesOf(settings.REDIS_SENTINELS),
    name: settings.REDIS_SENTINEL_NAME,
    sentinelUsername: orUndefined(settings.REDIS_SENTINEL_USERNAME),
    sentinelPassword: orUndefined(settings.REDIS_SENTINEL_PASSWORD),
    sentinelTLS: settings.REDIS_SENTINEL_TLS ? {} : undefined,
    // Without it ioredis ignores `tls` for the primary found through Sentinel.
    enableTLSForSentinelMode: settings.REDIS_TLS,
    sentinelCommandTimeout: 500,
  });
}

function clusterClient(settings: RedisSettings): Cluster {
  return new (loadIoredis().Cluster)(nodesOf(settings.REDIS_CLUSTER_NODES), {
    redisOptions: { ...neverWait(settings.REDIS_COMMAND_TIMEOUT_MS), ...nodeAuth(settings) },
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

/** `address` is for logs: never a password. */
const TOPOLOGIES: Record<
  RedisTopology,
  { endpoint(settings: RedisSettings): RedisEndpoint; address(settings: RedisSettings): string }
> = {
  standalone: {
    endpoint: (settings) => ({
      topology: 'standalone',
      client: createRedisClient(settings.REDIS_URL, settings.REDIS_COMMAND_TIMEOUT_MS),
    }),
    address: (settings) => {
      const { hostname, port } = new URL(settings.REDIS_URL);
      return `${hostname}:${port || '6379'}`;
    },
  },
  sentinel: {
    endpoint: (settings) => ({ topology: 'sentinel', client: sentinelClient(settings) }),
    address: (settings) => `Sentinel ${settings.REDIS_SENTINEL_NAME} (${settings.REDIS_SENTINELS})`,
  },
  cluster: {
    endpoint: (settings) => ({ topology: 'cluster', client: clusterClient(settings) }),
    address: (settings) => `Cluster ${settings.REDIS_CLUSTER_NODES}`,
  },
};

export function connectRedis(settings: RedisSettings): RedisConnection {
  const topology = TOPOLOGIES[redisTopology(settings)];
  return new RedisConnection(topology.endpoint(settings), topology.address(settings));
}
