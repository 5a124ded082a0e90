import { Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import { rateLimitMessage } from '../common/error-messages';
import { clientKey } from './client-key';
import { DailyLimitStorage } from './daily-limit.storage';
import { setRateLimitHeaders } from './rate-limit-headers';

/**
 * Refuses a client already over its daily limit before its body is read or a route runs: an
 * Express middleware ahead of the body parser answers the same 429 the guard would (body, rate-limit
 * headers, Retry-After), and the security headers, CORS, the request log and the metrics still
 * apply. It acts only on what the guard has shown it:
 * - a route (method and path, no parameters) on which the guard has refused a request, so a route
 *   with `@SkipThrottle()` or a path that no route takes is never answered here;
 * - a client the storage knows at once to be over the limit today (`refuseAtOnce`; a storage
 *   that is not a DailyLimitStorage, or whose check fails, leaves every request to the guard).
 * Everything else goes on to the guard, which stays the authority. Over its limit, a client's
 * malformed or oversized body therefore gets 429, not 400 or 413: it is not read at all.
 */
@Injectable()
export class EarlyRefusal {
  /** `"POST /api/depreciate"` → the Express route, so metrics label the refusal with its route. */
  private readonly routes = new Map<string, unknown>();
  private limit = 0;
  private body = Buffer.alloc(0);
  /** The guard's storage, when it can answer `refuseAtOnce` (a plain ThrottlerStorage cannot). */
  private storage?: DailyLimitStorage;

  /** Called by the guard once it knows its limit and storage: refusals can then be learnt. */
  enable(limit: number, storage: ThrottlerStorage): void {
    this.limit = limit;
    this.body = Buffer.from(JSON.stringify({ statusCode: 429, message: rateLimitMessage(limit) }));
    this.storage = storage instanceof DailyLimitStorage ? storage : undefined;
  }

  /**
   * Called by the guard when it refuses `request`, counted as `key`: its route is answered early
   * from now on, provided the key is the client's address (a custom `getTracker` or `generateKey`
   * keeps every refusal in the guard) and the route's path has no parameters.
   */
  learn(request: Request, key: string): void {
    const route = request.route as { path?: unknown } | undefined;
    if (this.storage === undefined || key !== clientKey(request)) return;
    if (typeof route?.path !== 'string' || route.path !== request.path) return;
    this.routes.set(`${request.method} ${route.path}`, route);
  }

  readonly middleware = (request: Request, response: Response, next: NextFunction): void => {
    if (this.routes.size === 0) return next();
    const route = this.routes.get(`${request.method} ${request.path}`);
    if (route === undefined || this.storage === undefined) return next();
    let record;
    try {
      record = this.storage.refuseAtOnce(clientKey(request), this.limit);
    } catch {
      record = undefined; // the guard counts it, and a store's failure is handled there
    }
    if (record === undefined) return next();
    request.route = route;
    setRateLimitHeaders(response, this.limit, record);
    response.statusCode = 429;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', this.body.length);
    response.end(this.body);
  };
}
