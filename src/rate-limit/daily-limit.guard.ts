import { ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerModuleOptions, ThrottlerRequest, ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { clientKey } from '../common/client-key';
import { StartupRefusal } from '../common/startup-refusal';
import { DailyLimitPolicy, rateLimitHeaderValues } from './daily-limit.policy';
import { DAY_MS } from './daily-limit.storage';
import { refuseMisplacedThrottle, SKIP_THROTTLE_KEY } from './throttler-support';

/** Throttler options DailyLimitGuard does not honour: the daily window and the contract fix them. */
const UNSUPPORTED_OPTIONS = ['ignoreUserAgents', 'setHeaders', 'ipv6SubnetPrefix', 'blockDuration'];

/** Throttler options honoured through ThrottlerGuard's own flow, when given. */
const FLOW_OPTIONS = ['skipIf', 'getTracker', 'generateKey', 'errorMessage'];

/** Overriding any of these moves the guard onto ThrottlerGuard's flow, which calls them. */
const EXTENSION_POINTS = [
  'shouldSkip',
  'handleRequest',
  'getTracker',
  'generateKey',
  'throwThrottlingException',
  'getErrorMessage',
  'setResponseHeader',
] as const;

/** ThrottlerGuard's `headerPrefix`: the contract's headers are X-RateLimit-*, whatever it says. */
const HEADER_PREFIX = 'X-RateLimit';

/** The options given at the module's level and the one throttler's: either may hold one. */
const givenOptions = (levels: object[], names: string[]): string[] =>
  names.filter((name) =>
    levels.some((options) => (options as Record<string, unknown>)[name] !== undefined),
  );

/**
 * The daily limit as a ThrottlerGuard: one throttler over the UTC day, one budget per client across
 * the API. Its own path skips ThrottlerGuard's flow (no promise per request) unless an override or
 * option needs it (then no early refusal); what it cannot honour stops start-up.
 */
@Injectable()
export class DailyLimitGuard extends ThrottlerGuard {
  /** `@SkipThrottle()` per handler, then class: read once, not on every request. */
  private readonly skips = new Map<object, Map<object, boolean>>();
  private throughThrottlerFlow = false;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly policy: DailyLimitPolicy,
    private readonly discovery: DiscoveryService,
  ) {
    super(options, storage, reflector);
    // ThrottlerGuard's getErrorMessage answers it: the contract's text, unless overridden.
    this.errorMessage = policy.refusal.message;
  }

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const overridden = this.checkThrottlerUse();
    this.throughThrottlerFlow = overridden.length > 0;
    if (this.throughThrottlerFlow) {
      this.logger.log(
        `${this.constructor.name} overrides ${overridden.join(', ')}: requests are counted ` +
          "through ThrottlerGuard's flow, and the early refusal is off",
      );
    }
  }

  /** Refuses what it cannot honour (docs/contract.md); lists what needs ThrottlerGuard's flow. */
  private checkThrottlerUse(): string[] {
    const [throttler, ...others] = this.throttlers;
    if (others.length > 0 || throttler?.limit !== this.policy.limit || throttler.ttl !== DAY_MS) {
      throw new StartupRefusal(
        'DailyLimitGuard takes exactly one throttler: the daily limit (RATE_LIMIT_PER_DAY per UTC day)',
      );
    }
    const levels = [throttler, Array.isArray(this.options) ? {} : this.options];
    const unsupported = givenOptions(levels, UNSUPPORTED_OPTIONS);
    if (unsupported.length > 0) {
      throw new StartupRefusal(
        `DailyLimitGuard does not support the throttler option(s) ${unsupported.join(', ')}`,
      );
    }
    if (this.storageService !== this.policy.storage) {
      throw new StartupRefusal(
        "DailyLimitGuard counts in DailyLimitStorage: ThrottlerModule's storage must be that " +
          'store (replace DailyLimitStorage, not the throttler storage token)',
      );
    }
    if (this.headerPrefix !== HEADER_PREFIX) {
      throw new StartupRefusal(
        `DailyLimitGuard writes the contract's rate-limit headers (${HEADER_PREFIX}-*): ` +
          `headerPrefix '${this.headerPrefix}' of ${this.constructor.name} is not supported`,
      );
    }
    const controllers = this.discovery.getControllers().flatMap(({ metatype }) => metatype ?? []);
    refuseMisplacedThrottle(controllers as Type[], (handler, type) => this.skipped(handler, type));
    return [
      ...EXTENSION_POINTS.filter((method) => this[method] !== DailyLimitGuard.prototype[method]),
      ...givenOptions(levels, FLOW_OPTIONS).map((name) => `the option ${name}`),
      ...(this.errorMessage !== this.policy.refusal.message ? ['errorMessage'] : []),
    ];
  }

  /**
   * A boolean when the store answers at once: Nest awaits anything else twice, and a promise per
   * request cost about 3 % of the throughput on one core (bench/README.md, "Where the time goes").
   */
  // @ts-expect-error ThrottlerGuard declares a promise; Nest's CanActivate also takes a boolean.
  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (this.throughThrottlerFlow) return super.canActivate(context);
    if (this.isSkipped(context)) return true;
    const { req, res } = this.getRequestResponse(context) as { req: Request; res: Response };
    const admitted = this.policy.admit(req, res);
    return admitted === undefined ? true : admitted.then(() => true);
  }

  /** Through setResponseHeader and throwThrottlingException, so a subclass's overrides apply. */
  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, getTracker, generateKey } = request;
    const { req, res } = this.getRequestResponse(context);
    const tracker = await getTracker(req, context);
    const key = generateKey(context, tracker, throttler.name ?? 'default');
    const record = await this.policy.count(res as ServerResponse, key);
    if (record === undefined) return true; // answered meanwhile: not counted
    for (const [name, value] of rateLimitHeaderValues(limit, record))
      this.setResponseHeader(res, name, value);
    if (record.isBlocked)
      await this.throwThrottlingException(context, { limit, ttl, key, tracker, ...record });
    return true;
  }

  /** The client: its address, normalized (docs/contract.md, "Who is a client"). */
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    return Promise.resolve(clientKey(req as unknown as Request));
  }

  /** The client alone, not the route: one budget across the API. */
  protected override generateKey(_context: ExecutionContext, tracker: string, _name: string) {
    return tracker;
  }

  /** `@SkipThrottle()`'s key ends with the one throttler's name ('default' unless named). */
  private skipped(handler: object, controller: object): boolean {
    const key = SKIP_THROTTLE_KEY + (this.throttlers[0].name ?? 'default');
    const targets = [handler, controller] as Type[];
    return Boolean(this.reflector.getAllAndOverride<boolean>(key, targets));
  }

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
