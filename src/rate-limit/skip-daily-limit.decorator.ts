import { SkipThrottle } from '@nestjs/throttler';

/**
 * Marks a controller or route as not counted against the daily limit. RateLimitModule's one
 * throttler is unnamed ('default'), so this is plain `@SkipThrottle()` under a name that says why.
 */
export const SkipDailyLimit = (): ClassDecorator & MethodDecorator => SkipThrottle();
