import type { ServerResponse } from 'node:http';
import { DailyLimitRecord } from './daily-limit.storage';
import { DAY_SECONDS } from './daily-window';

/**
 * The rate-limit headers of every counted answer (CONTRACT.md): the X-RateLimit-* trio, the IETF
 * httpapi draft's pair (draft-ietf-httpapi-ratelimit-headers-11, structured fields), and on a
 * refusal Retry-After. All times are seconds until the next 00:00 UTC.
 */
export function setRateLimitHeaders(
  response: ServerResponse,
  limit: number,
  record: DailyLimitRecord,
): void {
  const remaining = Math.max(0, limit - record.totalHits);
  const reset = record.timeToExpire;
  response.setHeader('X-RateLimit-Limit', limit);
  response.setHeader('X-RateLimit-Remaining', remaining);
  response.setHeader('X-RateLimit-Reset', reset);
  response.setHeader('RateLimit-Policy', `"daily";q=${limit};w=${DAY_SECONDS}`);
  response.setHeader('RateLimit', `"daily";r=${remaining};t=${reset}`);
  if (record.isBlocked) response.setHeader('Retry-After', record.timeToBlockExpire);
}
