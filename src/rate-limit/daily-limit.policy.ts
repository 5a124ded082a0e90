import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerException } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { Environment } from '../config/environment';
import { ErrorResponses } from '../common/error-responses';
import { clientKey } from '../common/client-key';
import { expressPath } from '../common/express-internals';
import { rateLimitMessage } from '../common/error-messages';
import { DailyLimitRecord, DailyLimitStorage } from './daily-limit.storage';
import { setRateLimitHeaders } from './rate-limit-headers';

/** As Express matches routes (any case, trailing slash or not): every spelling is refused alike. */
const routeKey = ({ method, path }: Pick<Request, 'method' | 'path'>): string =>
  `${method} ${expressPath(path)}`;

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
  ) {
    this.limit = config.get('RATE_LIMIT_PER_DAY', { infer: true });
    const message = rateLimitMessage(this.limit);
    this.refusal = new ThrottlerException(message);
  }

  /** Who a request counts against (the throttler's `getTracker`). */
  readonly key = (request: Pick<Request, 'ip' | 'socket'>): string => clientKey(request);

  count(
    response: ServerResponse,
    key: string,
  ): DailyLimitRecord | Promise<DailyLimitRecord> | undefined {
    // Answered by the edge meanwhile (its body broke off): not counted, as HTTP-layer refusals are.
    if (response.writableEnded) return undefined;
    return this.storage.hit(key, this.limit);
  }

  /** Synchronous when the store answers at once: no promise on the hot path. */
  admit(request: Request, response: ServerResponse, key: string): void | Promise<void> {
    const record = this.count(response, key);
    if (record === undefined) return;
    if ('then' in record) {
      return record.then((counted) => this.answer(request, response, key, counted));
    }
    this.answer(request, response, key, record);
  }

  private answer(
    request: Request,
    response: ServerResponse,
    key: string,
    record: DailyLimitRecord,
  ): void {
    setRateLimitHeaders(response, this.limit, record);
    if (!record.isBlocked) return;
    const route = request.route as { path?: unknown } | undefined;
    const at = routeKey(request);
    // A path with parameters never equals its pattern: only fixed paths are refused early.
    if (key === this.key(request) && typeof route?.path === 'string') {
      if (routeKey({ method: request.method, path: route.path }) === at) {
        this.refusedRoutes.set(at, route);
      }
    }
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
      return this.storage.refuseAtOnce(this.key(request), this.limit);
    } catch {
      return undefined; // the guard counts it, and handles the store's failure
    }
  }
}
