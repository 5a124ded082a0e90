import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import { RATE_LIMIT_HEADERS } from '../rate-limit/rate-limit-headers';

/**
 * A public API meant for browsers: any origin, no credentials. A preflight (`OPTIONS` with an
 * Origin) is answered 204 by the CORS middleware, before routing, so it never counts against the
 * daily limit. Browser code can read the rate-limit headers and the request id.
 */
export const CORS_OPTIONS: CorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST'],
  allowedHeaders: ['Content-Type', 'X-Request-Id'],
  exposedHeaders: [...Object.values(RATE_LIMIT_HEADERS), 'X-Request-Id'],
  maxAge: 86_400,
  optionsSuccessStatus: 204,
};
