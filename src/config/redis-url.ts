import { ValidateBy, ValidationArguments } from 'class-validator';

/** Redis's own bound on a database index (`databases` is an int). */
const MAX_DATABASE = 2_147_483_647;

const EXAMPLE = 'e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2';

/**
 * What is wrong with a Redis URL, or undefined when ioredis can use it as it is. ioredis reads the
 * path as the database number and the query string as client options without checking either:
 * `/abc` becomes `SELECT NaN`, which it sends without catching the refusal (the process dies), and
 * `?db=x` does the same. So the path is digits or nothing, and there is no query string.
 */
function redisUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a redis:// or rediss:// URL, ${EXAMPLE}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be a redis:// or rediss:// URL, ${EXAMPLE}`;
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '')
    return `must be a redis:// or rediss:// URL, ${EXAMPLE}`;
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
