import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import { Environment } from '../config/environment';
import { clientKey } from './client-key';
import { DailyLimitStorage } from './daily-limit.storage';
import { DAY_MS } from './daily-window';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';

/** Provides the daily counters, kept apart so the throttler's options can inject them. */
@Module({
  providers: [{ provide: DailyLimitStorage, useClass: MemoryDailyLimitStorage }],
  exports: [DailyLimitStorage],
})
export class DailyLimitStorageModule {}

/**
 * The daily limit: RATE_LIMIT_PER_DAY requests per client per UTC day, one budget per client
 * across every route of the API (the key is the client alone, not the route).
 */
export const RateLimitModule = ThrottlerModule.forRootAsync({
  imports: [DailyLimitStorageModule],
  inject: [ConfigService, DailyLimitStorage],
  useFactory: (config: ConfigService<Environment, true>, storage: DailyLimitStorage) => ({
    // Unnamed ('default'), so a plain `@SkipThrottle()` frees a route, as teams expect.
    throttlers: [{ limit: config.get('RATE_LIMIT_PER_DAY', { infer: true }), ttl: DAY_MS }],
    storage,
    getTracker: (request: Record<string, unknown>) => clientKey(request as unknown as Request),
    generateKey: (_context: unknown, tracker: string) => tracker,
  }),
});
