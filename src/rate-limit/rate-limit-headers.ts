import type { ServerResponse } from 'node:http';
import { decimal } from '../common/decimal';
import { AnswerHeader } from '../common/node-internals';
import { DailyLimitRecord } from './daily-limit.storage';
import { DAY_SECONDS } from './daily-window';

/**
 * Headers of every counted answer (docs/contract.md, "Rate-limit headers"), with the IETF pair of
 * draft-ietf-httpapi-ratelimit-headers-11. The OpenAPI document and CORS build on these names.
 */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  state: 'RateLimit',
  policy: 'RateLimit-Policy',
  retryAfter: 'Retry-After',
} as const;

export function rateLimitHeaderValues(
  limit: number,
  record: DailyLimitRecord,
): Array<[string, number | string]> {
  const remaining = Math.max(0, limit - record.totalHits);
  const reset = record.timeToExpire;
  const values: Array<[string, number | string]> = [
    [RATE_LIMIT_HEADERS.limit, limit],
    [RATE_LIMIT_HEADERS.remaining, remaining],
    [RATE_LIMIT_HEADERS.reset, reset],
    [RATE_LIMIT_HEADERS.policy, `"daily";q=${limit};w=${DAY_SECONDS}`],
    [RATE_LIMIT_HEADERS.state, `"daily";r=${decimal(remaining)};t=${decimal(reset)}`],
  ];
  if (record.isBlocked) values.push([RATE_LIMIT_HEADERS.retryAfter, record.timeToBlockExpire]);
  return values;
}

/** Each name checked once here (AnswerHeader), not on every answer. */
const ANSWER_HEADERS = new Map<string, AnswerHeader>(
  Object.values(RATE_LIMIT_HEADERS).map((name) => [name, new AnswerHeader(name)]),
);

/**
 * Numbers go through decimal() (as Node writes them, no cache); every value is digits in fixed
 * text, so none is checked again (AnswerHeader.setChecked).
 */
export function setRateLimitHeaders(
  response: ServerResponse,
  limit: number,
  record: DailyLimitRecord,
): void {
  for (const [name, value] of rateLimitHeaderValues(limit, record)) {
    const text = typeof value === 'number' ? decimal(value) : value;
    ANSWER_HEADERS.get(name)!.setChecked(response, text);
  }
}
