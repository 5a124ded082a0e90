import type { ServerResponse } from 'node:http';
import { AnswerHeader } from '../common/node-internals';
import { DailyLimitRecord } from './daily-limit.storage';
import { DAY_SECONDS } from './daily-window';

const UP_TO_999 = Array.from({ length: 1000 }, (_, n) => String(n));
const THREE_DIGITS = UP_TO_999.map((digits) => digits.padStart(3, '0'));

/**
 * String(n) for a non-negative integer, without V8's heap-wide number-to-string cache, where each
 * request's new value outlived it and was promoted to the old generation (bench/README.md).
 */
export function decimal(n: number): string {
  if (n < 1000 && n >= 0 && Number.isInteger(n)) return UP_TO_999[n];
  if (!Number.isSafeInteger(n) || n < 0) return String(n);
  let digits = '';
  let rest = n;
  while (rest >= 1000) {
    digits = THREE_DIGITS[rest % 1000] + digits;
    rest = Math.floor(rest / 1000);
  }
  return UP_TO_999[rest] + digits;
}

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
