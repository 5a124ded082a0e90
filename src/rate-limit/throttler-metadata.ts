import { SkipThrottle, Throttle } from '@nestjs/throttler';

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
