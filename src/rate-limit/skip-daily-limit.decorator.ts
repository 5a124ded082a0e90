import { SkipThrottle } from '@nestjs/throttler';

/** The throttler's name in RateLimitModule; `@SkipThrottle()` alone would skip only 'default'. */
export const DAILY_THROTTLER = 'daily';

/** Marks a controller or route as not counted against the daily limit (health, docs, pages). */
export const SkipDailyLimit = (): MethodDecorator & ClassDecorator =>
  SkipThrottle({ [DAILY_THROTTLER]: true });
