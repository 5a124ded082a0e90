import type { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import {
  SkipThrottle,
  Throttle,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { StartupRefusal } from '../common/startup-refusal';

/** The throttler name the probes below write under; cut off to leave the keys' prefixes. */
const PROBE = 'probe';

/**
 * Its metadata keys, which @nestjs/throttler does not export: read from what its decorators write,
 * so they follow the package (throttler-metadata.spec.ts fails if it changes them).
 */
function keyPrefixes(decorate: ClassDecorator): string[] {
  class Probe {}
  decorate(Probe);
  return Reflect.getOwnMetadataKeys(Probe).map((key) => String(key).slice(0, -PROBE.length));
}

/** `@SkipThrottle()`'s key, followed by a throttler's name ('THROTTLER:SKIP' in 6.7.1). */
export const SKIP_THROTTLE_KEY = keyPrefixes(SkipThrottle({ [PROBE]: true }))[0];

export const THROTTLE_KEYS: readonly string[] = keyPrefixes(
  Throttle({ [PROBE]: { limit: 1, ttl: 1 } }),
);

/** Whether `target` (a handler or a controller, or one it extends) carries `@Throttle()`. */
export function hasThrottle(target: object): boolean {
  return Reflect.getMetadataKeys(target).some(
    (key) => typeof key === 'string' && THROTTLE_KEYS.some((prefix) => key.startsWith(prefix)),
  );
}

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

/** What DailyLimitGuard is, as its start-up checks see it. */
interface GuardAtStartup {
  name: string;
  throttlers: ThrottlerOptions[];
  moduleOptions: ThrottlerModuleOptions;
  storage: ThrottlerStorage;
  headerPrefix: string;
  errorMessageOverridden: boolean;
  /** Each extension point: whether the guard's class overrides DailyLimitGuard's own. */
  overrides: (method: (typeof EXTENSION_POINTS)[number]) => boolean;
  /** Whether `@SkipThrottle()` exempts a route, as the guard reads it. */
  skipped: (handler: object, controller: object) => boolean;
}

/** The daily limit and its store, as DailyLimitPolicy has them. */
interface DailyLimitAtStartup {
  limit: number;
  ttl: number;
  storage: ThrottlerStorage;
}

/**
 * Refuses at start-up what DailyLimitGuard cannot honour (docs/contract.md, "Daily limit"), and
 * says which overrides and options move it onto ThrottlerGuard's flow (none: its own path).
 */
export function checkThrottlerUse(
  guard: GuardAtStartup,
  daily: DailyLimitAtStartup,
  controllers: Type[],
): string[] {
  const [throttler, ...others] = guard.throttlers;
  if (others.length > 0 || throttler?.limit !== daily.limit || throttler.ttl !== daily.ttl) {
    throw new StartupRefusal(
      'DailyLimitGuard takes exactly one throttler: the daily limit (RATE_LIMIT_PER_DAY per UTC day)',
    );
  }
  const levels: object[] = [
    throttler,
    Array.isArray(guard.moduleOptions) ? {} : guard.moduleOptions,
  ];
  const unsupported = givenOptions(levels, UNSUPPORTED_OPTIONS);
  if (unsupported.length > 0) {
    throw new StartupRefusal(
      `DailyLimitGuard does not support the throttler option(s) ${unsupported.join(', ')}`,
    );
  }
  if (guard.storage !== daily.storage) {
    throw new StartupRefusal(
      "DailyLimitGuard counts in DailyLimitStorage: ThrottlerModule's storage must be that " +
        'store (replace DailyLimitStorage, not the throttler storage token)',
    );
  }
  if (guard.headerPrefix !== HEADER_PREFIX) {
    throw new StartupRefusal(
      `DailyLimitGuard writes the contract's rate-limit headers (${HEADER_PREFIX}-*): ` +
        `headerPrefix '${guard.headerPrefix}' of ${guard.name} is not supported`,
    );
  }
  refuseMisplacedThrottle(controllers, guard.skipped);
  return [
    ...EXTENSION_POINTS.filter(guard.overrides),
    ...givenOptions(levels, FLOW_OPTIONS).map((name) => `the option ${name}`),
    ...(guard.errorMessageOverridden ? ['errorMessage'] : []),
  ];
}

function refuseMisplacedThrottle(
  controllers: Type[],
  skipped: (handler: object, controller: object) => boolean,
): void {
  const routes = controllers.flatMap((controller) => throttledRoutes(controller, skipped));
  if (routes.length === 0) return;
  throw new StartupRefusal(
    `@Throttle() on ${[...new Set(routes)].join(', ')} is not supported: the daily limit is one ` +
      'budget per client per UTC day across the API (RATE_LIMIT_PER_DAY). Remove it, or use ' +
      '@SkipThrottle() to exempt the route.',
  );
}

function throttledRoutes(
  controller: Type,
  skipped: (handler: object, controller: object) => boolean,
): string[] {
  const prototype = controller.prototype as Record<string, object>;
  return new MetadataScanner()
    .getAllMethodNames(prototype)
    .filter((method) => {
      const handler = prototype[method];
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) return false; // no route
      if (!hasThrottle(handler) && !hasThrottle(controller)) return false;
      // As the throttler does: a skipped route is never limited, whatever @Throttle() says.
      return !skipped(handler, controller);
    })
    .map((method) => `${controller.name}.${method}`);
}
