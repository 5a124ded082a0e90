import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import { REQUEST_ID_HEADER } from '../edge/request-id';
import { RATE_LIMIT_HEADERS } from '../rate-limit/rate-limit-headers';

/** Any origin may read the API's answers. */
const ORIGIN = '*';
/** As one string: the cors middleware would otherwise join an array on every request. */
const EXPOSED_HEADERS = [...Object.values(RATE_LIMIT_HEADERS), REQUEST_ID_HEADER].join(',');

/**
 * A public API meant for browsers: any origin, no credentials. A preflight (`OPTIONS` with an
 * Origin) is answered 204 by the CORS middleware, before routing, so it never counts against the
 * daily limit. Browser code can read the rate-limit headers and the request id.
 */
export const CORS_OPTIONS: CorsOptions = {
  origin: ORIGIN,
  methods: 'GET,HEAD,POST',
  allowedHeaders: `Content-Type,${REQUEST_ID_HEADER}`,
  exposedHeaders: EXPOSED_HEADERS,
  maxAge: 86_400,
  optionsSuccessStatus: 204,
};

/**
 * What the CORS middleware adds to an actual (not preflight) answer under CORS_OPTIONS, for the
 * answers written before it runs (refusals at the edge): without them a page sees a network error
 * instead of the error body.
 */
export const CORS_ANSWER_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', ORIGIN],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
];
