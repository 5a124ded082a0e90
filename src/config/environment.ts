import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { ValidateBy } from 'class-validator';
import { StartupRefusal } from '../common/startup-refusal';
import { redisNodesProblem, REDIS_ENDPOINTS, redisTopologyConflict } from './redis-topology';
import { listenHostProblem } from './listen-host';
import { redisUrlProblem } from './redis-url';
import { shownValue } from './shown-value';
import { toTrustProxy, trustProxyProblem, type TrustProxy } from './trust-proxy';

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'verbose'] as const;
export type AppLogLevel = (typeof LOG_LEVELS)[number];

const RATE_LIMIT_STORES = ['memory', 'redis'] as const;

/** Anything but `true` or `false` stays a string, so @IsBoolean refuses it. */
const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

/** Digits only: anything else stays a string, so @IsInt refuses it. */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;

const Flag = (): PropertyDecorator =>
  applyDecorators(Transform(toBoolean), IsBoolean({ message: 'must be true or false' }));

/** The message names both bounds, so an operator refused at either end reads the range. */
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

const OneOf = (values: readonly string[]): PropertyDecorator =>
  IsIn(values, { message: `must be one of ${values.join(', ')}` });

/** A rule whose message is the problem `problem` finds (undefined: none). */
const rule = (problem: (value: unknown) => string | undefined): PropertyDecorator =>
  ValidateBy({
    name: problem.name,
    validator: {
      validate: (value) => problem(value) === undefined,
      defaultMessage: (args) => problem(args?.value) ?? 'is invalid',
    },
  });

/** The environment (docs/contract.md, "Configuration"), validated once at start-up. */
export class Environment {
  @WholeNumber(0, 65535) PORT: number = 3000;
  @rule(listenHostProblem) HOST: string = '0.0.0.0';

  @WholeNumber(1, Number.MAX_SAFE_INTEGER, 'requests') RATE_LIMIT_PER_DAY: number = 100;
  @OneOf(RATE_LIMIT_STORES) RATE_LIMIT_STORE: (typeof RATE_LIMIT_STORES)[number] = 'memory';

  @rule(redisUrlProblem) REDIS_URL: string = 'redis://127.0.0.1:6379';
  @rule(redisNodesProblem) REDIS_SENTINELS: string = '';
  @Matches(/^[A-Za-z0-9._-]*$/, { message: 'must be a name of letters, digits, ".", "_" or "-"' })
  REDIS_SENTINEL_NAME: string = '';
  @rule(redisNodesProblem) REDIS_CLUSTER_NODES: string = '';

  @IsString() REDIS_USERNAME: string = '';
  @IsString() REDIS_PASSWORD: string = '';
  @Flag() REDIS_TLS: boolean = false;
  @IsString() REDIS_SENTINEL_USERNAME: string = '';
  @IsString() REDIS_SENTINEL_PASSWORD: string = '';
  @Flag() REDIS_SENTINEL_TLS: boolean = false;

  /** An evicted counter is a fresh budget, so by default an evicting Redis stops start-up. */
  @Flag() REDIS_ALLOW_EVICTION: boolean = false;
  /** Past it, the request is counted in this instance's memory. */
  @WholeNumber(10, 10_000, 'milliseconds') REDIS_COMMAND_TIMEOUT_MS: number = 200;
  /** Readiness answers 503 while this instance counts alone (Redis unavailable). */
  @Flag() READINESS_REQUIRES_SHARED_COUNTERS: boolean = false;
  /** Shown and logged past it: instances name the day by their own clocks (docs/contract.md). */
  @WholeNumber(1, 86_400_000, 'milliseconds') REDIS_CLOCK_OFFSET_WARN_MS: number = 1_000;

  @Transform(toTrustProxy) @rule(trustProxyProblem) TRUST_PROXY: TrustProxy = false;

  @OneOf(LOG_LEVELS) LOG_LEVEL: AppLogLevel = 'info';
  /** At least a stream's 64 KiB high-water mark, so a full buffer always drains with an event. */
  @WholeNumber(65_536, 1_073_741_824, 'bytes') LOG_BUFFER_BYTES: number = 4 * 1024 * 1024;

  /** 0: 90 % of the process's descriptor limit. */
  @WholeNumber(0, 1_000_000, 'connections (0: automatic)') MAX_CONNECTIONS: number = 0;
  /** A client is an address or an IPv6 /64; proxies TRUST_PROXY trusts are exempt. */
  @WholeNumber(1, 1_000_000, 'connections') MAX_CONNECTIONS_PER_CLIENT: number = 32;
  /** Over-cap connections still answered 503; past these, they are closed at accept. */
  @WholeNumber(0, 1_000_000, 'connections') CONNECTION_REFUSALS_PER_CLIENT: number = 128;
  /** How long an over-cap connection may take to send its headers before its 503 anyway. */
  @WholeNumber(10, 60_000, 'milliseconds') CONNECTION_REFUSAL_TIMEOUT_MS: number = 1_000;
  /** After a refusal, how long a body still arriving is read and dropped, at most. */
  @WholeNumber(100, 600_000, 'milliseconds') LINGERING_TIME_MS: number = 5_000;
  /** Like nginx's lingering_timeout: the silence that ends lingering early. */
  @WholeNumber(100, 600_000, 'milliseconds') LINGERING_TIMEOUT_MS: number = 1_000;
  /** Requests one connection may have waiting for their answers. */
  @WholeNumber(1, 10_000, 'requests') MAX_PIPELINED_REQUESTS: number = 8;
  @WholeNumber(100, 3_600_000, 'milliseconds') HEADERS_TIMEOUT_MS: number = 10_000;
  @WholeNumber(100, 3_600_000, 'milliseconds') REQUEST_TIMEOUT_MS: number = 15_000;
  /** ~100 bytes each; past it, new clients of the day are counted in the sketch. */
  // At most 10 million: a V8 Map holds 16.7 million entries.
  @WholeNumber(1_000, 10_000_000, 'clients') MAX_TRACKED_CLIENTS: number = 1_000_000;
  /** The more, the fewer honest clients refused early (docs/operations.md). */
  @WholeNumber(1, 4_096, 'MiB') OVERFLOW_SKETCH_MB: number = 128;
  @WholeNumber(100, 3_600_000, 'milliseconds') KEEP_ALIVE_TIMEOUT_MS: number = 5_000;

  /** 0: a port the system chooses. */
  @WholeNumber(0, 65535) METRICS_PORT: number = 9464;
  /** Loopback unless the scraper is elsewhere. */
  @rule(listenHostProblem) METRICS_HOST: string = '127.0.0.1';

  /** Readiness answers 503 this long after a stop signal while requests are still served. */
  @WholeNumber(0, 3_600_000, 'milliseconds') SHUTDOWN_DRAIN_DELAY_MS: number = 0;
  /** From the drain delay's end: the accept queue, then the requests in flight. */
  @WholeNumber(1, 3_600_000, 'milliseconds') SHUTDOWN_TIMEOUT_MS: number = 10_000;
  /** Before it listens, the service answers its own requests this long (warm-up.ts); 0: not, the
   * default, as it costs the steady state (docs/operations.md, "The warm-up"). */
  @WholeNumber(0, 10_000, 'milliseconds') WARM_UP_MS: number = 0;
}

/** Every setting's default, for a parameter's default where no configuration is passed. */
export const DEFAULTS: Readonly<Environment> = Object.freeze(new Environment());
const KEYS = Object.keys(DEFAULTS) as (keyof Environment)[];

/** Unset or empty means the default; throws one line naming the first bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): Environment {
  const given = Object.fromEntries(
    KEYS.filter((key) => raw[key] !== undefined && raw[key] !== '').map((key) => [key, raw[key]]),
  );
  if (REDIS_ENDPOINTS.some((name) => given[name] !== undefined)) given.RATE_LIMIT_STORE ??= 'redis';
  const environment = plainToInstance(Environment, given, { exposeDefaultValues: true });
  const [error] = validateSync(environment, { stopAtFirstError: true });
  const reason = Object.values(error?.constraints ?? {})[0] ?? 'is invalid';
  const problem = error
    ? `${error.property}${shownValue(error.property, given[error.property])} ${reason}`
    : (redisTopologyConflict(given) ?? conflictBetween(environment));
  if (problem) throw new StartupRefusal(`Invalid configuration: ${problem}`);
  return environment;
}

function conflictBetween(environment: Environment): string | undefined {
  const { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, PORT, METRICS_PORT } = environment;
  if (REQUEST_TIMEOUT_MS < HEADERS_TIMEOUT_MS)
    return `REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS} must be at least HEADERS_TIMEOUT_MS (${HEADERS_TIMEOUT_MS}): the request includes its headers`;
  // Refused even with different hosts: the default HOST (0.0.0.0) holds the port on every address.
  // Two 0s are two ports the system chooses, never the same one.
  if (METRICS_PORT !== 0 && METRICS_PORT === PORT)
    return `METRICS_PORT=${METRICS_PORT} must differ from PORT (${PORT}): /metrics has a port of its own`;
  return undefined;
}

/**
 * Read through the prototype: ConfigModule copies the own keys of what `validate` returns into
 * process.env, which would make every default look set to a child process or a second app.
 */
export const configFromEnvironment = (raw: Record<string, unknown>): Environment =>
  Object.create(validateEnvironment(raw)) as Environment;
