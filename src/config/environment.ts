import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import {
  IsRedisNodes,
  REDIS_SETTINGS,
  redisEndpointGiven,
  redisTopologyConflict,
} from './redis-topology';
import { IsListenHost } from './listen-host';
import { IsRedisUrl } from './redis-url';
import { shownValue } from './shown-value';
import { IsTrustProxy, toTrustProxy, type TrustProxy } from './trust-proxy';

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'verbose'] as const;
export type AppLogLevel = (typeof LOG_LEVELS)[number];

const RATE_LIMIT_STORES = ['memory', 'redis'] as const;
type RateLimitStore = (typeof RATE_LIMIT_STORES)[number];

/** Requests per client per UTC day when RATE_LIMIT_PER_DAY is not set. */
const DEFAULT_RATE_LIMIT_PER_DAY = 100;

/** Clients counted exactly a day, beyond which new ones are counted in a sketch (MAX_TRACKED_CLIENTS). */
export const DEFAULT_MAX_TRACKED_CLIENTS = 1_000_000;

/** The memory, in MiB, of the sketch that counts clients past MAX_TRACKED_CLIENTS (OVERFLOW_SKETCH_MB). */
export const DEFAULT_OVERFLOW_SKETCH_MB = 128;

/** How long a request waits for Redis when REDIS_COMMAND_TIMEOUT_MS is not set, in ms. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 200;

/** How far the clock may be from Redis's before it is shown, when REDIS_CLOCK_OFFSET_WARN_MS is not set. */
export const DEFAULT_REDIS_CLOCK_OFFSET_WARN_MS = 1_000;

/** What stdout may hold for a reader that does not keep up, when LOG_BUFFER_BYTES is not set. */
export const DEFAULT_LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/** The force-exit timeout after a stop signal, in ms, when SHUTDOWN_TIMEOUT_MS is not set. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** `true` or `false` as a boolean; anything else stays a string and fails @IsBoolean. */
const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

/** A whole number written as digits only; anything else stays a string and fails @IsInt. */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;

/** `true` or `false`, written so. */
const Flag = (): PropertyDecorator =>
  applyDecorators(Transform(toBoolean), IsBoolean({ message: 'must be true or false' }));

/**
 * A whole number from `min` to `max`, written as digits, of `unit` (ports without one). Its message
 * names both bounds, so an operator refused at either end reads the range.
 */
const WholeNumber = (min: number, max: number, unit?: string): PropertyDecorator => {
  const message = unit
    ? `must be a whole number of ${unit}, from ${min} to ${max}`
    : `must be an integer from ${min} to ${max}`;
  return applyDecorators(
    Transform(toInteger),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
};

/** The environment (docs/contract.md, "Configuration"), validated once at start-up. */
export class Environment {
  @WholeNumber(0, 65535)
  PORT: number = 3000;

  @IsListenHost()
  HOST: string = '0.0.0.0';

  @WholeNumber(1, Number.MAX_SAFE_INTEGER, 'requests')
  RATE_LIMIT_PER_DAY: number = DEFAULT_RATE_LIMIT_PER_DAY;

  /** Where the daily counters live: this instance's memory, or Redis (shared by every instance). */
  @IsIn(RATE_LIMIT_STORES, { message: `must be one of ${RATE_LIMIT_STORES.join(', ')}` })
  RATE_LIMIT_STORE: RateLimitStore = 'memory';

  /** Setting it (present and not empty) means Redis: RATE_LIMIT_STORE then defaults to redis. */
  @IsRedisUrl()
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Instead of REDIS_URL: the sentinels (`host:port,...`) that know the primary. */
  @IsRedisNodes()
  REDIS_SENTINELS: string = '';

  /** The primary's group name the sentinels monitor (`sentinel monitor <name> ...`). */
  @Matches(/^[A-Za-z0-9._-]*$/, { message: 'must be a name of letters, digits, ".", "_" or "-"' })
  REDIS_SENTINEL_NAME: string = '';

  /** Instead of REDIS_URL: seed nodes of a Redis Cluster (`host:port,...`). */
  @IsRedisNodes()
  REDIS_CLUSTER_NODES: string = '';

  /** The data nodes' ACL user and password with Sentinel or Cluster (REDIS_URL carries its own). */
  @IsString()
  REDIS_USERNAME: string = '';

  @IsString()
  REDIS_PASSWORD: string = '';

  /** Whether the data nodes are reached over TLS, with Sentinel or Cluster. */
  @Flag()
  REDIS_TLS: boolean = false;

  /** The sentinels' own ACL user and password (`requirepass` of the sentinels). */
  @IsString()
  REDIS_SENTINEL_USERNAME: string = '';

  @IsString()
  REDIS_SENTINEL_PASSWORD: string = '';

  /** Whether the sentinels are reached over TLS (apart from the data nodes). */
  @Flag()
  REDIS_SENTINEL_TLS: boolean = false;

  /**
   * Whether the Redis store may count in a Redis whose `maxmemory-policy` can evict keys (every
   * policy but noeviction): a counter evicted is a fresh budget. False: such a Redis stops start-up.
   */
  @Flag()
  REDIS_ALLOW_EVICTION: boolean = false;

  /** How long a request waits for Redis before it is counted in this instance's memory, in ms. */
  @WholeNumber(10, 10_000, 'milliseconds')
  REDIS_COMMAND_TIMEOUT_MS: number = DEFAULT_REDIS_COMMAND_TIMEOUT_MS;

  /** Whether readiness answers 503 while this instance counts alone (Redis unavailable). */
  @Flag()
  READINESS_REQUIRES_SHARED_COUNTERS: boolean = false;

  /**
   * How far this instance's clock may be from the Redis server's (TIME) before /health shows it
   * and a warning is logged: instances name the day by their own clocks (docs/contract.md).
   */
  @WholeNumber(1, 86_400_000, 'milliseconds')
  REDIS_CLOCK_OFFSET_WARN_MS: number = DEFAULT_REDIS_CLOCK_OFFSET_WARN_MS;

  /** Express `trust proxy`, read here once (app.setup.ts applies it); a refused value fails validation. */
  @Transform(toTrustProxy)
  @IsTrustProxy()
  TRUST_PROXY: TrustProxy = false;

  @IsIn(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: AppLogLevel = 'info';

  /**
   * Log lines stdout may hold while its reader does not keep up; past it, lines are dropped and
   * counted. At least Node's 64 KiB high-water mark of a stream (so a full buffer always drains
   * with an event), at most 1 GiB.
   */
  @WholeNumber(65_536, 1_073_741_824, 'bytes')
  LOG_BUFFER_BYTES: number = DEFAULT_LOG_BUFFER_BYTES;

  /** Connections open at once, all clients together; 0: 90 % of the process's descriptor limit. */
  @WholeNumber(0, 1_000_000, 'connections (0: automatic)')
  MAX_CONNECTIONS: number = 0;

  /** Connections open at once from one client address (an IPv6 /64); proxies TRUST_PROXY trusts are exempt. */
  @WholeNumber(1, 1_000_000, 'connections')
  MAX_CONNECTIONS_PER_CLIENT: number = 32;

  /**
   * Connections past MAX_CONNECTIONS_PER_CLIENT still answered 503 (with Retry-After) rather than
   * closed at accept; past these, a client's further connections are closed at accept.
   */
  @WholeNumber(0, 1_000_000, 'connections')
  CONNECTION_REFUSALS_PER_CLIENT: number = 128;

  /** How long such a connection may take to send its request's headers before its 503 anyway. */
  @WholeNumber(10, 60_000, 'milliseconds')
  CONNECTION_REFUSAL_TIMEOUT_MS: number = 1_000;

  /** After a refusal sent while a body may still arrive: how long what arrives is read and dropped, at most. */
  @WholeNumber(100, 600_000, 'milliseconds')
  LINGERING_TIME_MS: number = 5_000;

  /** …and how long the client may send nothing before the connection closes (nginx's lingering_timeout). */
  @WholeNumber(100, 600_000, 'milliseconds')
  LINGERING_TIMEOUT_MS: number = 1_000;

  /** Requests one connection may have sent and not yet had answered (pipelining depth). */
  @WholeNumber(1, 10_000, 'requests')
  MAX_PIPELINED_REQUESTS: number = 8;

  /** How long a client may take to send a request's headers, in milliseconds. */
  @WholeNumber(100, 3_600_000, 'milliseconds')
  HEADERS_TIMEOUT_MS: number = 10_000;

  /** How long a client may take to send a whole request, headers and body, in milliseconds. */
  @WholeNumber(100, 3_600_000, 'milliseconds')
  REQUEST_TIMEOUT_MS: number = 15_000;

  /**
   * Clients the in-memory counters track exactly per UTC day (~100 bytes each); past it, new
   * clients are counted in a sketch of OVERFLOW_SKETCH_MB.
   */
  // At most 10 million: a V8 Map holds 16.7 million entries.
  @WholeNumber(1_000, 10_000_000, 'clients')
  MAX_TRACKED_CLIENTS: number = DEFAULT_MAX_TRACKED_CLIENTS;

  /**
   * MiB for counting the clients past MAX_TRACKED_CLIENTS in a day, taken when the table fills and
   * given back at midnight UTC: the more, the fewer honest clients refused early (docs/operations.md).
   */
  @WholeNumber(1, 4_096, 'MiB')
  OVERFLOW_SKETCH_MB: number = DEFAULT_OVERFLOW_SKETCH_MB;

  /** How long an idle keep-alive connection stays open, in milliseconds. */
  @WholeNumber(100, 3_600_000, 'milliseconds')
  KEEP_ALIVE_TIMEOUT_MS: number = 5_000;

  /** The management port, where `GET /metrics` is served (0: one the system chooses). */
  @WholeNumber(0, 65535)
  METRICS_PORT: number = 9464;

  /** The management address: loopback unless the scraper is elsewhere. */
  @IsListenHost()
  METRICS_HOST: string = '127.0.0.1';

  /** After a stop signal, how long readiness answers 503 while requests are still served. */
  @WholeNumber(0, 3_600_000, 'milliseconds')
  SHUTDOWN_DRAIN_DELAY_MS: number = 0;

  /** How long the requests in flight may take after a stop signal before the exit is forced. */
  @WholeNumber(1, 3_600_000, 'milliseconds')
  SHUTDOWN_TIMEOUT_MS: number = DEFAULT_SHUTDOWN_TIMEOUT_MS;
}

const KEYS = Object.keys(new Environment()) as (keyof Environment)[];

/** A variable this service reads is set to something it cannot use. */
export class InvalidConfigurationError extends Error {}

/**
 * An operator who says where Redis is (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES) means
 * Redis: without RATE_LIMIT_STORE the store is redis, and RATE_LIMIT_STORE=memory beside it is a
 * contradiction, refused rather than guessed.
 */
function impliedStore(environment: Environment, given: Record<string, unknown>): void {
  const endpoint = redisEndpointGiven(given);
  if (endpoint === undefined) return;
  if (given.RATE_LIMIT_STORE === undefined) environment.RATE_LIMIT_STORE = 'redis';
  if (environment.RATE_LIMIT_STORE !== 'redis') {
    throw new InvalidConfigurationError(
      `Invalid configuration: ${endpoint} is set but RATE_LIMIT_STORE=${environment.RATE_LIMIT_STORE}: unset ${endpoint} to count in memory, or set RATE_LIMIT_STORE=redis`,
    );
  }
}

/**
 * Validates the variables this service reads (unset or empty means the default) and returns them
 * typed. Throws one line naming the first bad variable, its value and what it must be.
 */
export function validateEnvironment(raw: Record<string, unknown>): Environment {
  const given = Object.fromEntries(
    KEYS.filter((key) => raw[key] !== undefined && raw[key] !== '').map((key) => [key, raw[key]]),
  );
  const environment = plainToInstance(Environment, given, { exposeDefaultValues: true });
  const [error] = validateSync(environment, { stopAtFirstError: true });
  if (error) {
    const reason = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
    const value = shownValue(error.property, given[error.property]);
    throw new InvalidConfigurationError(
      `Invalid configuration: ${error.property}${value} ${reason}`,
    );
  }
  const topologyConflict = redisTopologyConflict(given);
  if (topologyConflict)
    throw new InvalidConfigurationError(`Invalid configuration: ${topologyConflict}`);
  impliedStore(environment, given);
  const conflict = conflictBetween(environment);
  if (conflict) throw new InvalidConfigurationError(`Invalid configuration: ${conflict}`);
  return environment;
}

/** What two variables, each valid alone, make impossible together; undefined when nothing. */
function conflictBetween(environment: Environment): string | undefined {
  const { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, PORT, METRICS_PORT } = environment;
  if (REQUEST_TIMEOUT_MS < HEADERS_TIMEOUT_MS) {
    return `REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS} must be at least HEADERS_TIMEOUT_MS (${HEADERS_TIMEOUT_MS}): the request includes its headers`;
  }
  // Refused even with different hosts: the default HOST (0.0.0.0) holds the port on every address.
  // Two 0s are two ports the system chooses, never the same one.
  if (METRICS_PORT !== 0 && METRICS_PORT === PORT) {
    return `METRICS_PORT=${METRICS_PORT} must differ from PORT (${PORT}): /metrics has a port of its own`;
  }
  return undefined;
}

/**
 * ConfigModule's `validate`: the validated environment, read through the prototype. ConfigModule
 * copies the own keys of what `validate` returns into process.env, which would make every default
 * look set to a child process or to a second app in the same process (a default REDIS_URL beside
 * RATE_LIMIT_STORE=memory is a contradiction). Only what the operator set is in process.env.
 */
export const configFromEnvironment = (raw: Record<string, unknown>): Environment =>
  Object.create(validateEnvironment(raw)) as Environment;

/** What the Redis store reads to connect (REDIS_SETTINGS): every name is one of Environment's. */
export type RedisSettings = Pick<Environment, (typeof REDIS_SETTINGS)[number]>;
