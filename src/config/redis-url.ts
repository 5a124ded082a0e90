/** Redis's own bound on a database index (`databases` is an int). */
const MAX_DATABASE = 2_147_483_647;

const EXAMPLE = 'e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2';
const NOT_A_REDIS_URL = `must be a redis:// or rediss:// URL, ${EXAMPLE}`;
const ENCODE_CREDENTIALS =
  'must percent-encode "/", "?", "#" and "%" in its user name and password (as %2F, %3F, %23 and %25)';

/**
 * WHATWG's URL ends the user information at the LAST `@` but the host at the first `/`, `?` or `#`
 * (`redis://app:123/x@host` is host `app`). ioredis then runs decodeURIComponent on both, which
 * throws at start-up on a `%` not followed by two hex digits (`50%off`).
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

/** ioredis turns `/abc` or `?db=x` unchecked into `SELECT NaN`, whose refusal kills the process. */
export function redisUrlProblem(value: unknown): string | undefined {
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
