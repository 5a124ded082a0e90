import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { DailyLimitPolicy } from './daily-limit.policy';
import { DAY_MS } from './daily-window';

/** Throttler options this guard does not honour: the daily window and the contract fix them. */
const UNSUPPORTED_OPTIONS = [
  'skipIf',
  'ignoreUserAgents',
  'errorMessage',
  'setHeaders',
  'ipv6SubnetPrefix',
  'blockDuration',
] as const;

/**
 * The throttler guard of the daily limit. It keeps @nestjs/throttler's own `canActivate`, so
 * `@SkipThrottle()` frees a route or controller as teams expect, and replaces only `handleRequest`,
 * the extension point that counts: the DailyLimitPolicy counts, writes the headers and refuses.
 * What it cannot honour is refused loudly: unsupported module options at start-up, and
 * `@Throttle()` on a handler (another limit or window) with an error naming the handler.
 */
@Injectable()
export class DailyLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly policy: DailyLimitPolicy,
  ) {
    super(options, storage, reflector);
  }

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const [daily, ...others] = this.throttlers;
    if (others.length > 0 || daily?.limit !== this.policy.limit || daily.ttl !== DAY_MS) {
      throw new Error(
        'DailyLimitGuard takes exactly one throttler: the daily limit (RATE_LIMIT_PER_DAY per UTC day)',
      );
    }
    const levels: object[] = [daily, Array.isArray(this.options) ? {} : this.options];
    const given = UNSUPPORTED_OPTIONS.filter((name) =>
      levels.some((options) => (options as Record<string, unknown>)[name] !== undefined),
    );
    if (given.length > 0) {
      throw new Error(
        `DailyLimitGuard does not support the throttler option(s) ${given.join(', ')}`,
      );
    }
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, getTracker, generateKey } = request;
    if (limit !== this.policy.limit || ttl !== DAY_MS) throw unsupportedThrottle(context);
    const { req, res } = this.getRequestResponse(context);
    const key = generateKey(context, await getTracker(req, context), throttler.name ?? 'default');
    await this.policy.admit(req as Request, res as Response, key);
    return true;
  }
}

function unsupportedThrottle(context: ExecutionContext): Error {
  const handler = `${context.getClass().name}.${context.getHandler().name}`;
  return new Error(
    `@Throttle() on ${handler} is not supported: the daily limit is one budget per client per UTC ` +
      'day across the API (RATE_LIMIT_PER_DAY). Remove it, or use @SkipThrottle() to exempt the route.',
  );
}
