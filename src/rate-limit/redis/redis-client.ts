import Redis, { Cluster, RedisOptions } from 'ioredis';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS, type Environment } from '../../config/environment';
import {
  parseRedisNodes,
  RedisNode,
  RedisTopology,
  redisTopology,
} from '../../config/redis-topology';
import { DAILY_COUNT_LUA } from './redis-daily-count';

/** A connection to the daily counters: one server (directly or found by Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster;

/** The variables that say how to reach Redis (docs/contract.md, "Configuration"). */
export const REDIS_SETTINGS = [
  'REDIS_URL',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_NAME',
  'REDIS_CLUSTER_NODES',
  'REDIS_USERNAME',
  'REDIS_PASSWORD',
  'REDIS_TLS',
  'REDIS_SENTINEL_USERNAME',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_SENTINEL_TLS',
  'REDIS_COMMAND_TIMEOUT_MS',
] as const satisfies (keyof Environment)[];
export type RedisSettings = Pick<Environment, (typeof REDIS_SETTINGS)[number]>;

const SCRIPTS = { dailyCount: { lua: DAILY_COUNT_LUA, numberOfKeys: 1 } };

/**
 * Options shared by every topology, so that a request never waits for Redis: no offline queue (a
 * command while disconnected fails at once), a bounded reply time (per command, pipelined or not:
 * REDIS_COMMAND_TIMEOUT_MS), no retried commands. A primary demoted while connected (a failover
 * that kept it alive, a managed endpoint that moved) answers writes with READONLY: the connection
 * is dropped and made again, to whatever is primary now.
 */
const neverWait = (commandTimeout: number) =>
  ({
    commandTimeout,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    reconnectOnError: (error: Error) => error.message.startsWith('READONLY'),
  }) satisfies RedisOptions;

/** Reconnection forever in the background, at most a second apart. */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1_000);

/**
 * One server's connection (directly or found by Sentinel), reconnected forever in the background.
 * The commands of one event-loop turn share one write and one read (automatic pipelining): under
 * load, several requests per round trip, and redis-server spends less than half the CPU per request.
 */
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
  return new Redis(url, oneServer(commandTimeout));
}

const nodesOf = (list: string): RedisNode[] => parseRedisNodes(list) ?? [];
const orUndefined = (value: string) => (value === '' ? undefined : value);

/** The client the settings describe: REDIS_URL, the sentinels' primary, or the cluster. */
export function createRedisClientFor(settings: RedisSettings): RedisClient {
  const topology = redisTopology(settings);
  const timeout = settings.REDIS_COMMAND_TIMEOUT_MS;
  if (topology === 'standalone') return createRedisClient(settings.REDIS_URL, timeout);
  const auth = {
    username: orUndefined(settings.REDIS_USERNAME),
    password: orUndefined(settings.REDIS_PASSWORD),
    tls: settings.REDIS_TLS ? {} : undefined,
  };
  if (topology === 'sentinel') {
    return new Redis({
      ...oneServer(timeout),
      ...auth,
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
  return new Cluster(nodesOf(settings.REDIS_CLUSTER_NODES), {
    redisOptions: { ...neverWait(timeout), ...auth },
    enableOfflineQueue: false,
    // Not in a Cluster: a pipeline whose commands all failed alike (the slot's primary died) is
    // sent again once the slots move, including a command that already timed out there and was
    // counted in this instance's memory; it would count twice (test/redis-cluster.e2e-spec.ts).
    enableAutoPipelining: false,
    clusterRetryStrategy: retryStrategy,
    // A command for a slot whose primary just died is retried once the slots are refreshed,
    // within the command timeout; the request is counted alone if that does not suffice.
    retryDelayOnFailover: 50,
    retryDelayOnClusterDown: 50,
    slotsRefreshTimeout: 500,
    scripts: SCRIPTS,
  });
}

/**
 * `command`, or a rejection once the client's command timeout has passed since now. With automatic
 * pipelining, ioredis sends one pipeline at a time: a command issued while a frozen Redis holds
 * the previous one waits for that one's timeout before its own starts (twice the timeout in all).
 * This bounds the wait from the moment of asking; the command itself may still reach Redis.
 */
export function withinCommandTimeout<T>(client: RedisClient, command: Promise<T>): Promise<T> {
  if (client instanceof Cluster) return command; // no automatic pipelining: ioredis's bound holds
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('Command timed out')), client.options.commandTimeout);
  });
  return Promise.race([command, deadline]).finally(() => clearTimeout(timer));
}

/** Where the client counts, for logs (never a password). */
export function redisAddress(settings: RedisSettings): string {
  const topology = redisTopology(settings);
  if (topology === 'sentinel')
    return `Sentinel ${settings.REDIS_SENTINEL_NAME} (${settings.REDIS_SENTINELS})`;
  if (topology === 'cluster') return `Cluster ${settings.REDIS_CLUSTER_NODES}`;
  const { hostname, port } = new URL(settings.REDIS_URL);
  return `${hostname}:${port || '6379'}`;
}

/** The topology of a client made here (GET /health names it). */
export function redisTopologyOf(client: RedisClient): RedisTopology {
  if (client instanceof Cluster) return 'cluster';
  return client.options.sentinels?.length ? 'sentinel' : 'standalone';
}
