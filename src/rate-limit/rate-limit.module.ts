import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import { Clock } from '../common/clock';
import { Environment } from '../config/environment';
import { clientKey } from './client-key';
import { DailyLimitStorage } from './daily-limit.storage';
import { DAY_MS } from './daily-window';
import { EarlyRefusal } from './early-refusal';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import { createRedisClient, redisAddress } from './redis-client';
import { RedisDailyLimitStorage } from './redis-daily-limit.storage';

/** The store RATE_LIMIT_STORE names; the memory store doubles as Redis's fallback. */
function dailyLimitStorage(
  config: ConfigService<Environment, true>,
  memory: MemoryDailyLimitStorage,
  clock: Clock,
): DailyLimitStorage {
  if (config.get('RATE_LIMIT_STORE', { infer: true }) !== 'redis') return memory;
  const url = config.get('REDIS_URL', { infer: true });
  return new RedisDailyLimitStorage(createRedisClient(url), memory, clock, redisAddress(url));
}

/**
 * Provides the daily counters, kept apart so the throttler's options and the health check can
 * inject them, and EarlyRefusal (the guard enables and feeds it, configureApp mounts it).
 * `DailyLimitStorage` stays the token, so tests replace the store with
 * `overrideProvider(DailyLimitStorage)`.
 */
@Module({
  providers: [
    MemoryDailyLimitStorage,
    {
      provide: DailyLimitStorage,
      inject: [ConfigService, MemoryDailyLimitStorage, Clock],
      useFactory: dailyLimitStorage,
    },
    EarlyRefusal,
  ],
  exports: [DailyLimitStorage, EarlyRefusal],
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
