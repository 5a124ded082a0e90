import { ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
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
import { hasThrottle, SKIP_THROTTLE_KEY } from './throttler-metadata';

/** Throttler options this guard does not honour: the daily window and the contract fix them. */
const UNSUPPORTED_OPTIONS = [
  'skipIf',
  'ignoreUserAgents',
  'errorMessage',
  'setHeaders',
  'ipv6SubnetPrefix',
  'blockDuration',
] as const;

/** The answer of every admitted request the store counted at once: one promise, made once. */
const ADMITTED = Promise.resolve(true);

/**
 * The throttler guard of the daily limit. Its `canActivate` honours what @nestjs/throttler's own
 * does for the one daily throttler: `@SkipThrottle()` on a route or controller frees it, and
 * the module's `getTracker` and `generateKey` make the key; the DailyLimitPolicy then counts,
 * writes the headers and refuses. It reads a handler's metadata once, not on every request, and
 * makes no promise of its own while the store answers at once (the in-memory store).
 * What it cannot honour stops start-up in one line: unsupported module options, and `@Throttle()`
 * on a route (another limit, window, tracker or key), every such route named.
 */
@Injectable()
export class DailyLimitGuard extends ThrottlerGuard {
  /** Whether a handler (then its class) is skipped: its metadata, read the first time. */
  private readonly skips = new Map<object, Map<object, boolean>>();
  /** The one throttler, its name, tracker and key generator resolved once (onModuleInit). */
  private daily!: Required<Pick<ThrottlerOptions, 'name' | 'getTracker' | 'generateKey'>>;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly policy: DailyLimitPolicy,
    private readonly discovery: DiscoveryService,
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
    this.refuseMisplacedThrottle();
  }

  override canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isSkipped(context)) return ADMITTED;
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

  /** `@Throttle()` on any route that is not skipped stops start-up, every such route named. */
  private refuseMisplacedThrottle(): void {
    const routes = this.discovery
      .getControllers()
      .flatMap(({ metatype }) => (metatype ? this.throttledRoutes(metatype as Type) : []));
    if (routes.length === 0) return;
    throw new StartupRefusal(
      `@Throttle() on ${[...new Set(routes)].join(', ')} is not supported: the daily limit is one ` +
        'budget per client per UTC day across the API (RATE_LIMIT_PER_DAY). Remove it, or use ' +
        '@SkipThrottle() to exempt the route.',
    );
  }

  /** `Controller.handler` of each route of `controller` that `@Throttle()` would limit. */
  private throttledRoutes(controller: Type): string[] {
    const prototype = controller.prototype as Record<string, object>;
    return new MetadataScanner()
      .getAllMethodNames(prototype)
      .filter((method) => {
        const handler = prototype[method];
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) return false; // no route
        if (!hasThrottle(handler) && !hasThrottle(controller)) return false;
        // As the throttler does: a skipped route is never limited, whatever @Throttle() says.
        return !this.skipped(handler, controller);
      })
      .map((method) => `${controller.name}.${method}`);
  }

  private skipped(handler: object, controller: object): boolean {
    const key = SKIP_THROTTLE_KEY + this.daily.name;
    const targets = [handler, controller] as Type[];
    return Boolean(this.reflector.getAllAndOverride<boolean>(key, targets));
  }

  /** Whether the context's handler and class are skipped, read from their metadata once. */
  private isSkipped(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    const type = context.getClass();
    let byClass = this.skips.get(handler);
    if (byClass === undefined) this.skips.set(handler, (byClass = new Map<object, boolean>()));
    let skipped = byClass.get(type);
    if (skipped === undefined) byClass.set(type, (skipped = this.skipped(handler, type)));
    return skipped;
  }
}
