import type { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import { StartupRefusal } from '../common/startup-refusal';

/** The throttler name the probes below write under; cut off to leave the keys' prefixes. */
const PROBE = 'probe';

/**
 * Its metadata keys, which @nestjs/throttler does not export: read from what its decorators write,
 * so they follow the package (throttler-support.spec.ts fails if it changes them).
 */
function keyPrefixes(decorate: ClassDecorator): readonly string[] {
  class Probe {}
  decorate(Probe);
  return Reflect.getOwnMetadataKeys(Probe).map((key) => String(key).slice(0, -PROBE.length));
}

/** `@SkipThrottle()`'s key, followed by a throttler's name ('THROTTLER:SKIP' in 6.7.1). */
export const SKIP_THROTTLE_KEY = keyPrefixes(SkipThrottle({ [PROBE]: true }))[0];

export const THROTTLE_KEYS = keyPrefixes(Throttle({ [PROBE]: { limit: 1, ttl: 1 } }));

/** Whether `target` (a handler or a controller, or one it extends) carries `@Throttle()`. */
export function hasThrottle(target: object): boolean {
  return Reflect.getMetadataKeys(target).some(
    (key) => typeof key === 'string' && THROTTLE_KEYS.some((prefix) => key.startsWith(prefix)),
  );
}

/** Whether `@SkipThrottle()` exempts a route, as the guard reads it. */
type Skipped = (handler: object, controller: object) => boolean;

/** `@Throttle()` on a route that is counted stops start-up: the daily limit is one budget. */
export function refuseMisplacedThrottle(controllers: Type[], skipped: Skipped): void {
  const routes = controllers.flatMap((controller) => {
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
  });
  if (routes.length === 0) return;
  throw new StartupRefusal(
    `@Throttle() on ${[...new Set(routes)].join(', ')} is not supported: the daily limit is one ` +
      'budget per client per UTC day across the API (RATE_LIMIT_PER_DAY). Remove it, or use ' +
      '@SkipThrottle() to exempt the route.',
  );
}
