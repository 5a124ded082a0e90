import { ValidateBy, ValidationArguments } from 'class-validator';

/** Redis's own bound on a database index (`databases` is an int). */
const MAX_DATABASE = 2_147_483_647;

const EXAMPLE = 'e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2';

const NOT_A_REDIS_URL = `must be a redis:// or rediss:// URL, ${EXAMPLE}`;

const ENCODE_CREDENTIALS =
  'must percent-encode "/", "?", "#" and "%" in its user name and password (as %2F, %3F, %23 and %25)';

/**
 * What keeps the user name and password of `value` (a redis:// URL) from reaching Redis as
 * written, or undefined. WHATWG's URL ends the user information at the LAST `@` (an `@`, a space or
 * a quote in a password is fine) but the host at the first `/`, `?` or `#`: with one of those in a
 * password the URL is not one, or names another host (`redis://app:123/x@host` is host `app`, port
 * 123). ioredis then percent-decodes both (decodeURIComponent), which throws URIError at start-up,
 * with a stack, on a `%` not followed by two hex digits (`50%off`).
 */
function credentialsProblem(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at === -1) return undefined;
  const userInformation = value.slice(value.indexOf('//') + 2, at);
  if (/[/?#]/.test(userInformation)) return ENCODE_CREDENTIALS;
  try {
    decodeURIComponent(userInformation);
  } catch {
    return ENCODE_CREDENTIALS;
  }
  return undefined;
}

/**
 * What is wrong with a Redis URL, or undefined when ioredis can use it as it is. ioredis reads the
 * path as the database number and the query string as client options without checking either:
 * `/abc` becomes `SELECT NaN`, which it sends without catching the refusal (the process dies), and
 * `?db=x` does the same. So the path is digits or nothing, and there is no query string.
 */
function redisUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^rediss?:\/\//i.test(value)) return NOT_A_REDIS_URL;
  const credentials = credentialsProblem(value);
  if (credentials !== undefined) return credentials;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || url.hostname === '') return NOT_A_REDIS_URL;
  if (url.search !== '' || url.hash !== '')
    return `must not have a query string or fragment (${EXAMPLE})`;
  const database = url.pathname.replace(/^\//, '');
  if (database !== '' && (!/^(0|[1-9]\d{0,9})$/.test(database) || +database > MAX_DATABASE))
    return `must name its database with a whole number after the port, e.g. redis://127.0.0.1:6379/2`;
  return undefined;
}

/** Class-validator rule for REDIS_URL: a URL ioredis can use as it is (redisUrlProblem). */
export function IsRedisUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isRedisUrl',
    validator: {
      validate: (value: unknown) => redisUrlProblem(value) === undefined,
      defaultMessage: (args?: ValidationArguments) => redisUrlProblem(args?.value) ?? 'is invalid',
    },
  });
}
