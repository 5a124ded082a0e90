import { ApiResponseOptions } from '@nestjs/swagger';

type HeadersObject = NonNullable<ApiResponseOptions['headers']>;

const integer = (description: string, example: number) => ({
  description,
  schema: { type: 'integer' as const, minimum: 0, example },
});

/**
 * The rate-limit headers of every counted answer (rate-limit-headers.ts sets them), for the
 * OpenAPI document. Examples use the default limit (100) at 09:30 UTC.
 */
export const RATE_LIMIT_HEADERS: HeadersObject = {
  'X-RateLimit-Limit': integer('Requests allowed per client per UTC day.', 100),
  'X-RateLimit-Remaining': integer('Requests left today for this client.', 99),
  'X-RateLimit-Reset': integer('Seconds until the counters reset at 00:00 UTC.', 52_200),
  'RateLimit-Policy': {
    description:
      'The policy, as draft-ietf-httpapi-ratelimit-headers-11 (structured field): ' +
      'quota q per window w seconds.',
    schema: { type: 'string', example: '"daily";q=100;w=86400' },
  },
  RateLimit: {
    description:
      'Remaining quota r and seconds t until the reset (draft-ietf-httpapi-ratelimit-headers-11).',
    schema: { type: 'string', example: '"daily";r=99;t=52200' },
  },
};

/** The headers of a 429: the same, plus when to come back. */
export const RATE_LIMITED_HEADERS: HeadersObject = {
  ...RATE_LIMIT_HEADERS,
  'Retry-After': integer('Seconds until the reset at 00:00 UTC, when requests pass again.', 52_200),
};
