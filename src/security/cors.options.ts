import { REQUEST_ID_HEADER } from '../common/answer-record';
import { RATE_LIMIT_HEADERS } from '../rate-limit/daily-limit.policy';

type Headers = ReadonlyArray<readonly [string, string]>;

const ORIGIN = '*';
const EXPOSED_HEADERS = [...Object.values(RATE_LIMIT_HEADERS), REQUEST_ID_HEADER].join(',');

/** Also on refusals at the edge: without them a page sees a network error, not the error body. */
export const CORS_ANSWER_HEADERS: Headers = [
  ['Access-Control-Allow-Origin', ORIGIN],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
];

/** Any `OPTIONS` is answered 204 in the middleware, before routing, so it never counts. */
export const CORS_PREFLIGHT_HEADERS: Headers = [
  ['Access-Control-Allow-Origin', ORIGIN],
  ['Access-Control-Allow-Methods', 'GET,HEAD,POST'],
  ['Access-Control-Allow-Headers', `Content-Type,${REQUEST_ID_HEADER}`],
  ['Access-Control-Max-Age', '86400'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
  ['Content-Length', '0'],
];
