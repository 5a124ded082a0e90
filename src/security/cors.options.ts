import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import { RATE_LIMIT_HEADERS } from '../rate-limit/rate-limit-headers';

/** As one string: the cors middleware would otherwise join an array on every request. */
const EXPOSED_HEADERS = [...Object.values(RATE_LIMIT_HEADERS), 'X-Request-Id'].join(',');

/**
 * A public API meant for browsers: any origin, no credentials. A preflight (`OPTIONS` with an
 * Origin) is answered 204 by the CORS middleware, before routing, so it never counts against the
 * daily limit. Browser code can read the rate-limit headers and the request id.
 */
export const CORS_OPTIONS: CorsOptions = {
  origin: '*',
  methods: 'GET,HEAD,POST',
  allowedHeaders: 'Content-Type,X-Request-Id',
  exposedHeaders: EXPOSED_HEADERS,
  maxAge: 86_400,
  optionsSuccessStatus: 204,
};

/**
 * What the CORS middleware adds to an answer, for the answers written before it runs (refusals at
 * the edge): without them a page sees a network error instead of the error body.
 */
export const CORS_ANSWER_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
];
