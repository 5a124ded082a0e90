import { SkipThrottle } from '@nestjs/throttler';

/**
 * Exempts a controller or handler from the daily limit (health, metrics, docs, the page). The
 * throttler is named 'daily' (RateLimitModule), and `@SkipThrottle()` alone only skips one named
 * 'default', so it would not exempt anything here.
 */
export const SkipDailyLimit = (): MethodDecorator & ClassDecorator => SkipThrottle({ daily: true });
