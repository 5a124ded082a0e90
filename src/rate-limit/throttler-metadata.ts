import { SkipThrottle, Throttle } from '@nestjs/throttler';

/** The throttler name the probes below write under; cut off to leave the keys' prefixes. */
const PROBE = 'probe';

/**
 * The metadata keys `decorate` writes on a class, each without the throttler name that ends it.
 * @nestjs/throttler declares its keys in throttler.constants, which its index does not export: they
 * are read here, once, from what its own exported decorators write, so they follow the package.
 * throttler-metadata.spec.ts holds them to that file and fails when the package changes it.
 */
function keyPrefixes(decorate: ClassDecorator): string[] {
  class Probe {}
  decorate(Probe);
  return Reflect.getOwnMetadataKeys(Probe).map((key) => String(key).slice(0, -PROBE.length));
}

/** `@SkipThrottle()`'s key, followed by a throttler's name ('THROTTLER:SKIP' in 6.7.1). */
export const SKIP_THROTTLE_KEY = keyPrefixes(SkipThrottle({ [PROBE]: true }))[0];

/**
 * The keys `@Throttle()` writes (a limit, a window, a block duration, a tracker, a key generator),
 * each followed by a throttler's name.
 */
export const THROTTLE_KEYS: readonly string[] = keyPrefixes(
  Throttle({ [PROBE]: { limit: 1, ttl: 1 } }),
);

/** Whether `target` (a handler or a controller, or one it extends) carries `@Throttle()`. */
export function hasThrottle(target: object): boolean {
  return Reflect.getMetadataKeys(target).some(
    (key) => typeof key === 'string' && THROTTLE_KEYS.some((prefix) => key.startsWith(prefix)),
  );
}
