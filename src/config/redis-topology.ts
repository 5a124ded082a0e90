import { isIPv6 } from 'node:net';
import type { Environment } from './environment';

export type RedisTopology = 'standalone' | 'sentinel' | 'cluster';

const ENTRY = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/** An IPv6 host is kept without its brackets. */
export function parseRedisNodes(value: string) {
  const nodes: { host: string; port: number }[] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    const [, ipv6, host, port] = ENTRY.exec(entry) ?? [];
    if (ipv6 !== undefined && !isIPv6(ipv6)) return undefined;
    if (port === undefined || +port < 1 || +port > 65535) return undefined;
    nodes.push({ host: ipv6 ?? host, port: +port });
  }
  return nodes;
}

export function redisNodesProblem(value: unknown): string | undefined {
  if (value === '' || (typeof value === 'string' && parseRedisNodes(value) !== undefined))
    return undefined;
  return 'must be host:port pairs separated by commas, an IPv6 address in brackets (e.g. 10.0.0.5:26379,[fd00::5]:26379)';
}

export const REDIS_ENDPOINTS = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;
/** With Sentinel or Cluster only: REDIS_URL carries its own. */
const NODE_AUTH = ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS'] as const;
const SENTINEL_ONLY = [
  'REDIS_SENTINEL_NAME',
  'REDIS_SENTINEL_USERNAME',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_SENTINEL_TLS',
] as const;

/** All the store reads to connect (docs/operations.md). */
export const REDIS_SETTINGS = [
  ...REDIS_ENDPOINTS,
  ...NODE_AUTH,
  ...SENTINEL_ONLY,
  'REDIS_COMMAND_TIMEOUT_MS',
] as const;
export type RedisSettings = Pick<Environment, (typeof REDIS_SETTINGS)[number]>;

/**
 * Two endpoints are two deployments (which one counts is a guess); a setting the chosen topology
 * does not read would be silently ignored, so it is refused instead. So is RATE_LIMIT_STORE=memory
 * beside an endpoint: saying where Redis is means Redis (RATE_LIMIT_STORE then defaults to redis).
 */
export function redisTopologyConflict(given: Record<string, unknown>): string | undefined {
  const endpoints = REDIS_ENDPOINTS.filter((name) => given[name] !== undefined);
  if (endpoints.length > 1)
    return `${endpoints.slice(0, -1).join(', ')} and ${endpoints.at(-1)} are set: set only one of REDIS_URL, REDIS_SENTINELS (with REDIS_SENTINEL_NAME) or REDIS_CLUSTER_NODES`;
  const sentinels = given.REDIS_SENTINELS !== undefined;
  if (sentinels && given.REDIS_SENTINEL_NAME === undefined)
    return 'REDIS_SENTINELS is set without REDIS_SENTINEL_NAME: name the primary the sentinels monitor';
  const stray = SENTINEL_ONLY.find((name) => given[name] !== undefined);
  if (!sentinels && stray)
    return `${stray} is set without REDIS_SENTINELS: it is for Sentinel only`;
  const auth = NODE_AUTH.find((name) => given[name] !== undefined);
  if (auth && !sentinels && given.REDIS_CLUSTER_NODES === undefined)
    return `${auth} is for REDIS_SENTINELS or REDIS_CLUSTER_NODES: with REDIS_URL, give the password in the URL (redis://:password@host:6379) and use rediss:// for TLS`;
  const [endpoint] = endpoints;
  if (endpoint !== undefined && given.RATE_LIMIT_STORE !== 'redis')
    return `${endpoint} is set but RATE_LIMIT_STORE=${String(given.RATE_LIMIT_STORE)}: unset ${endpoint} to count in memory, or set RATE_LIMIT_STORE=redis`;
  return undefined;
}

/** Decided here only; the store asks. */
export function redisTopology(settings: RedisSettings): RedisTopology {
  if (settings.REDIS_SENTINELS !== '') return 'sentinel';
  if (settings.REDIS_CLUSTER_NODES !== '') return 'cluster';
  return 'standalone';
}
