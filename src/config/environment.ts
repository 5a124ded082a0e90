import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUrl, Matches, Max, Min, validateSync } from 'class-validator';
import { IsTrustProxy, parseTrustProxy, type TrustProxy } from './trust-proxy';

export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'verbose'] as const;
export type AppLogLevel = (typeof LOG_LEVELS)[number];

export const RATE_LIMIT_STORES = ['memory', 'redis'] as const;
export type RateLimitStore = (typeof RATE_LIMIT_STORES)[number];

/** Requests per client per UTC day when RATE_LIMIT_PER_DAY is not set. */
export const DEFAULT_RATE_LIMIT_PER_DAY = 100;

/** The force-exit timeout after SIGTERM/SIGINT, in ms, when SHUTDOWN_TIMEOUT_MS is not set. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** A whole number written as digits only; anything else stays a string and fails @IsInt. */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;

/** The environment (CONTRACT.md, "Configuration"), validated once at start-up. */
export class Environment {
  @Transform(toInteger)
  @IsInt({ message: 'must be an integer from 0 to 65535' })
  @Min(0, { message: 'must be an integer from 0 to 65535' })
  @Max(65535, { message: 'must be an integer from 0 to 65535' })
  PORT: number = 3000;

  @IsString()
  @Matches(/^[A-Za-z0-9.:-]+$/, { message: 'must be an IP address or a host name' })
  HOST: string = '0.0.0.0';

  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number of requests, 1 or more' })
  @Min(1, { message: 'must be a whole number of requests, 1 or more' })
  RATE_LIMIT_PER_DAY: number = DEFAULT_RATE_LIMIT_PER_DAY;

  /** Where the daily counters live: this instance's memory, or Redis (shared by every instance). */
  @IsIn(RATE_LIMIT_STORES, { message: `must be one of ${RATE_LIMIT_STORES.join(', ')}` })
  RATE_LIMIT_STORE: RateLimitStore = 'memory';

  @IsUrl(
    { protocols: ['redis', 'rediss'], require_protocol: true, require_tld: false },
    { message: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' },
  )
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Express `trust proxy`, parsed here once (app.setup.ts applies it); undefined fails validation. */
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? parseTrustProxy(value) : value,
  )
  @IsTrustProxy()
  TRUST_PROXY: TrustProxy = false;

  @IsIn(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: AppLogLevel = 'info';

  /** How long the requests in flight may take after SIGTERM/SIGINT before the exit is forced. */
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number of milliseconds, 1 or more' })
  @Min(1, { message: 'must be a whole number of milliseconds, 1 or more' })
  SHUTDOWN_TIMEOUT_MS: number = DEFAULT_SHUTDOWN_TIMEOUT_MS;
}

const KEYS = Object.keys(new Environment()) as (keyof Environment)[];

/** A URL's user:password part, kept out of the start-up error (REDIS_URL may carry a password). */
const URL_CREDENTIALS = /\/\/[^/@\s"]*@/g;

/** A variable this service reads is set to something it cannot use. */
export class InvalidConfigurationError extends Error {}

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
    const value = JSON.stringify(given[error.property]).replace(URL_CREDENTIALS, '//***@');
    throw new InvalidConfigurationError(
      `Invalid configuration: ${error.property}=${value} ${reason}`,
    );
  }
  return environment;
}
