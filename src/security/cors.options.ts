import { REQUEST_ID_HEADER } from '../common/request-id';
import { RATE_LIMIT_HEADERS } from '../rate-limit/rate-limit-headers';

type Headers = ReadonlyArray<readonly [string, string]>;

/** Any origin may read the API's answers. */
const ORIGIN = '*';
/** Browser code can read the rate-limit headers and the request id. */
const EXPOSED_HEADERS = [...Object.values(RATE_LIMIT_HEADERS), REQUEST_ID_HEADER].join(',');

/**
 * What every actual (not preflight) answer carries: any origin, no credentials, the exposed
 * headers. Also the headers of the answers written before the middleware runs (refusals at the
 * edge): without them a page sees a network error instead of the error body.
 */
export const CORS_ANSWER_HEADERS: Headers = [
  ['Access-Control-Allow-Origin', ORIGIN],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
];

/**
 * A public API meant for browsers: a preflight (any `OPTIONS` request, whatever its path) is
 * answered 204 with these headers, in the middleware, before routing, so it never counts against
 * the daily limit: the methods and request headers the API takes, cached for a day.
 */
export const CORS_PREFLIGHT_HEADERS: Headers = [
  ['Access-Control-Allow-Origin', ORIGIN],
  ['Access-Control-Allow-Methods', 'GET,HEAD,POST'],
  ['Access-Control-Allow-Headers', `Content-Type,${REQUEST_ID_HEADER}`],
  ['Access-Control-Max-Age', '86400'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
  ['Content-Length', '0'],
];
