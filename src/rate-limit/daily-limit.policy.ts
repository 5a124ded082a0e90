import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerException } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { Environment } from '../config/environment';
import { ErrorResponses } from '../common/error-responses';
import { clientKey } from '../common/client-key';
import { AnswerHeader, expressPath } from '../common/platform-internals';
import { rateLimitMessage } from '../common/error-messages';
import type { DailyLimitRecord } from './daily-limit.storage';
import { dailyRecord, DailyLimitStorage, DAY_SECONDS } from './daily-limit.storage';
import { WarmUpState } from '../common/warm-up-state';

/** As Express matches routes (any case, trailing slash or not): every spelling is refused alike. */
const routeKey = ({ method, path }: Pick<Request, 'method' | 'path'>): string =>
  `${method} ${expressPath(path)}`;

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

export function rateLimitHeaderValues(limit: number, record: DailyLimitRecord) {
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

/**
 * The daily limit, decided in one place (docs/contract.md, "Daily limit"). Once the guard refused
 * a request on a route, `refuseEarly` answers a client over its limit there before its body is
 * read: only on routes without path parameters, for requests keyed by the client address.
 */
@Injectable()
export class DailyLimitPolicy {
  readonly limit: number;
  /** The refusal the guard throws; the exception filter writes its body. */
  readonly refusal: ThrottlerException;
  /** routeKey → Express's route, so metrics label an early refusal with it. */
  private readonly refusedRoutes = new Map<string, unknown>();

  constructor(
    config: ConfigService<Environment, true>,
    /** The daily counters; the guard checks that the throttler counts in them too. */
    readonly storage: DailyLimitStorage,
    private readonly errors: ErrorResponses,
    private readonly warmUp: WarmUpState,
  ) {
    this.limit = config.get('RATE_LIMIT_PER_DAY', { infer: true });
    this.refusal = new ThrottlerException(rateLimitMessage(this.limit));
  }

  count(response: ServerResponse, key: string): ReturnType<DailyLimitStorage['hit']> | undefined {
    // Answered by the edge meanwhile (its body broke off): not counted, as HTTP-layer refusals are.
    if (response.writableEnded) return undefined;
    // The service's own requests (warm-up.ts) count for no one: each is a day's first.
    if (this.warmUp.running) return dailyRecord(1, this.limit, DAY_SECONDS);
    return this.storage.hit(key, this.limit);
  }

  /** Keyed by the client address; synchronous when the store answers at once: no promise. */
  admit(request: Request, response: ServerResponse): void | Promise<void> {
    const record = this.count(response, clientKey(request));
    if (record === undefined) return;
    if ('then' in record) return record.then((counted) => this.answer(request, response, counted));
    this.answer(request, response, record);
  }

  private answer(request: Request, response: ServerResponse, record: DailyLimitRecord): void {
    setRateLimitHeaders(response, this.limit, record);
    if (!record.isBlocked) return;
    const route = request.route as { path?: unknown } | undefined;
    const at = routeKey(request);
    // A path with parameters never equals its pattern: only fixed paths are refused early.
    const fixedPath =
      typeof route?.path === 'string' &&
      routeKey({ method: request.method, path: route.path }) === at;
    if (fixedPath) this.refusedRoutes.set(at, route);
    throw this.refusal;
  }

  /** The Express middleware mounted ahead of the body parser (app.setup.ts). */
  readonly refuseEarly = (request: Request, response: Response, next: NextFunction): void => {
    if (this.refusedRoutes.size === 0) return next();
    const route = this.refusedRoutes.get(routeKey(request));
    const record = route === undefined ? undefined : this.overLimitNow(request);
    if (record === undefined) return next();
    request.route = route;
    setRateLimitHeaders(response, this.limit, record);
    // A body still arriving is not read: a small declared one is dropped and the connection kept,
    // anything else gets `Connection: close` and a lingering close (ErrorResponses.send).
    this.errors.send(response, 429, this.refusal.message);
  };

  private overLimitNow(request: Request): DailyLimitRecord | undefined {
    try {
      return this.storage.refuseAtOnce(clientKey(request), this.limit);
    } catch {
      return undefined; // the guard counts it, and handles the store's failure
    }
  }
}
