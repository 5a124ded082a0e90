// The package's own declaration of its keys, which its index does not export: read here only, to
// hold throttler-support.ts to it.
import * as constants from '@nestjs/throttler/dist/throttler.constants';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import { hasThrottle, SKIP_THROTTLE_KEY, THROTTLE_KEYS } from './throttler-support';

describe('the throttler metadata keys', () => {
  it("are @nestjs/throttler's own: SKIP for @SkipThrottle(), the other five for @Throttle()", () => {
    const { THROTTLER_OPTIONS: _options, THROTTLER_SKIP, ...throttle } = constants;
    expect(SKIP_THROTTLE_KEY).toBe(THROTTLER_SKIP);
    expect([...THROTTLE_KEYS].sort()).toEqual(Object.values(throttle).sort());
  });

  it('are those of @nestjs/throttler 6.7.1: an update that renames, adds or drops one fails here', () => {
    // Read what changed in the package before changing this: the guard refuses every key
    // @Throttle() writes and honours @SkipThrottle()'s, whatever they are called.
    expect({ ...constants }).toEqual({
      THROTTLER_LIMIT: 'THROTTLER:LIMIT',
      THROTTLER_TTL: 'THROTTLER:TTL',
      THROTTLER_TRACKER: 'THROTTLER:TRACKER',
      THROTTLER_BLOCK_DURATION: 'THROTTLER:BLOCK_DURATION',
      THROTTLER_KEY_GENERATOR: 'THROTTLER:KEY_GENERATOR',
      THROTTLER_OPTIONS: 'THROTTLER:MODULE_OPTIONS',
      THROTTLER_SKIP: 'THROTTLER:SKIP',
    });
  });

  it('find @Throttle() under any throttler name, on a handler, a controller or one it extends', () => {
    class Plain {
      handler() {}
    }
    @Throttle({ burst: { limit: 5, ttl: 60_000 } })
    class Limited {}
    class Extending extends Limited {}
    class WithHandler {
      @Throttle({ default: { limit: 5, ttl: 60_000 } })
      handler() {}
    }
    @SkipThrottle()
    class Skipped {}
    expect([Plain, Plain.prototype.handler, Skipped].map(hasThrottle)).toEqual([
      false,
      false,
      false,
    ]);
    expect([Limited, Extending, WithHandler.prototype.handler].map(hasThrottle)).toEqual([
      true,
      true,
      true,
    ]);
  });
});
