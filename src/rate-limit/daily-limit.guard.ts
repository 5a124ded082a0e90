import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { StartupRefusal } from '../common/startup-refusal';
import { DailyLimitPolicy } from './daily-limit.policy';
import { DAY_MS } from './daily-window';
import { SKIP_THROTTLE_KEY, THROTTLE_KEYS } from './throttler-metadata';

/** Throttler options this guard does not honour: the daily window and the contract fix them. */
const UNSUPPORTED_OPTIONS = [
  'skipIf',
  'ignoreUserAgents',
  'errorMessage',
  'setHeaders',
  'ipv6SubnetPrefix',
  'blockDuration',
] as const;

/** What a handler's metadata decides, once: counted, skipped, or refused (`@Throttle()`). */
type Decision = 'count' | 'skip' | Error;

/** The answer of every admitted request the store counted at once: one promise, made once. */
const ADMITTED = Promise.resolve(true);

/**
 * The throttler guard of the daily limit. Its `canActivate` honours what @nestjs/throttler's own
 * does for the one daily throttler: `@SkipThrottle()` on a route or controller frees it, and
 * the module's `getTracker` and `generateKey` make the key; the DailyLimitPolicy then counts,
 * writes the headers and refuses. It reads a handler's metadata once, not on every request, and
 * makes no promise of its own while the store answers at once (the in-memory store).
 * What it cannot honour is refused loudly: unsupported module options at start-up, and
 * `@Throttle()` on a handler or controller (another limit, window, tracker or key) with an error
 * naming the handler.
 */
@Injectable()
export class DailyLimitGuard extends ThrottlerGuard {
  private readonly decisions = new Map<object, Map<object, Decision>>();
  /** The one throttler, its name, tracker and key generator resolved once (onModuleInit). */
  private daily!: Required<Pick<ThrottlerOptions, 'name' | 'getTracker' | 'generateKey'>>;

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
      throw new StartupRefusal(
        'DailyLimitGuard takes exactly one throttler: the daily limit (RATE_LIMIT_PER_DAY per UTC day)',
      );
    }
    const levels: object[] = [daily, Array.isArray(this.options) ? {} : this.options];
    const given = UNSUPPORTED_OPTIONS.filter((name) =>
      levels.some((options) => (options as Record<string, unknown>)[name] !== undefined),
    );
    if (given.length > 0) {
      throw new StartupRefusal(
        `DailyLimitGuard does not support the throttler option(s) ${given.join(', ')}`,
      );
    }
    this.daily = {
      name: daily.name ?? 'default',
      getTracker: daily.getTracker ?? this.commonOptions.getTracker!,
      generateKey: daily.generateKey ?? this.commonOptions.generateKey!,
    };
  }

  override canActivate(context: ExecutionContext): Promise<boolean> {
    const decision = this.decisionFor(context);
    if (decision === 'skip') return ADMITTED;
    if (decision instanceof Error) throw decision;
    const { req, res } = this.getRequestResponse(context) as { req: Request; res: Response };
    const tracker = this.daily.getTracker(req, context);
    if (typeof tracker === 'string') return this.admit(context, req, res, tracker);
    return tracker.then((key) => this.admit(context, req, res, key));
  }

  private admit(context: ExecutionContext, req: Request, res: Response, tracker: string) {
    const key = this.daily.generateKey(context, tracker, this.daily.name);
    const admitted = this.policy.admit(req, res, key);
    return admitted === undefined ? ADMITTED : admitted.then(() => true);
  }

  /** The decision for the context's handler and class, read from their metadata the first time. */
  private decisionFor(context: ExecutionContext): Decision {
    const handler = context.getHandler();
    const type = context.getClass();
    let byClass = this.decisions.get(handler);
    if (byClass === undefined) {
      byClass = new Map<object, Decision>();
      this.decisions.set(handler, byClass);
    }
    let decision = byClass.get(type);
    if (decision === undefined) byClass.set(type, (decision = this.decide(context)));
    return decision;
  }

  private decide(context: ExecutionContext): Decision {
    const targets = [context.getHandler(), context.getClass()];
    const name = this.daily.name;
    // As the throttler does: a skipped route is never limited, whatever @Throttle() says.
    if (this.reflector.getAllAndOverride<boolean>(SKIP_THROTTLE_KEY + name, targets)) return 'skip';
    const throttled = THROTTLE_KEYS.some(
      (key) => this.reflector.getAllAndOverride<unknown>(key + name, targets) !== undefined,
    );
    return throttled ? unsupportedThrottle(context) : 'count';
  }
}

function unsupportedThrottle(context: ExecutionContext): Error {
  const handler = `${context.getClass().name}.${context.getHandler().name}`;
  return new Error(
    `@Throttle() on ${handler} is not supported: the daily limit is one budget per client per UTC ` +
      'day across the API (RATE_LIMIT_PER_DAY). Remove it, or use @SkipThrottle() to exempt the route.',
  );
}
