import { SkipThrottle } from '@nestjs/throttler';

/** The name of the one throttler RateLimitModule registers. */
export const DAILY_THROTTLER = 'daily';

/**
 * Marks a controller or route as not counted against the daily limit. Plain `@SkipThrottle()`
 * would not do it: it skips only a throttler named `default`, and ours is named `daily`.
 */
export const SkipDailyLimit = (): ClassDecorator & MethodDecorator =>
  SkipThrottle({ [DAILY_THROTTLER]: true });
