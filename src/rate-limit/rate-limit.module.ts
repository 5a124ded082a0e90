import { Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { getOptionsToken, getStorageToken, ThrottlerModuleOptions } from '@nestjs/throttler';
import { Clock } from '../common/clock';
import { Environment, type RedisSettings } from '../config/environment';
import { REDIS_SETTINGS } from '../config/redis-topology';
import { DailyLimitGuard } from './daily-limit.guard';
import { DailyLimitHealthIndicator } from './daily-limit.health';
import { DailyLimitGauges } from './daily-limit.metrics';
import { DailyLimitPolicy } from './daily-limit.policy';
import { DAILY_LIMIT_CONTEXT, DailyLimitStorage } from './daily-limit.storage';
import { DAY_MS } from './daily-window';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import { connectRedis } from './redis/redis-clients';
import { RedisDailyLimitStorage } from './redis/redis-daily-limit.storage';

/** The store RATE_LIMIT_STORE names; the memory store doubles as Redis's fallback. */
function dailyLimitStorage(
  config: ConfigService<Environment, true>,
  memory: MemoryDailyLimitStorage,
  clock: Clock,
): DailyLimitStorage {
  if (config.get('RATE_LIMIT_STORE', { infer: true }) !== 'redis') return memory;
  const settings = Object.fromEntries(
    REDIS_SETTINGS.map((name) => [name, config.get(name, { infer: true })]),
  ) as RedisSettings;
  const allowEviction = config.get('REDIS_ALLOW_EVICTION', { infer: true });
  const clockOffsetWarnMs = config.get('REDIS_CLOCK_OFFSET_WARN_MS', { infer: true });
  const logger = new Logger(DAILY_LIMIT_CONTEXT);
  return new RedisDailyLimitStorage(connectRedis(settings), memory.fallback, clock, logger, {
    allowEviction,
    clockOffsetWarnMs,
  });
}

/** @nestjs/throttler's options: one unnamed throttler (so a plain `@SkipThrottle()` frees a route). */
const throttlerOptions = (policy: DailyLimitPolicy): ThrottlerModuleOptions => ({
  throttlers: [{ limit: policy.limit, ttl: DAY_MS }],
  getTracker: (request) => policy.key(request as Parameters<DailyLimitPolicy['key']>[0]),
  // The key is the client alone, not the route: one budget across the API.
  generateKey: (_context, tracker) => tracker,
});

/**
 * The daily limit, whole: the counters (DailyLimitStorage, which tests replace with
 * `overrideProvider(DailyLimitStorage)`), the policy, the throttler's options and storage tokens,
 * the global guard, and the store's health indicator and gauges. app.setup.ts mounts the policy's
 * early refusal ahead of the body parser.
 */
@Module({
  imports: [TerminusModule, DiscoveryModule],
  providers: [
    {
      provide: MemoryDailyLimitStorage,
      inject: [Clock, ConfigService],
      useFactory: (clock: Clock, config: ConfigService<Environment, true>) =>
        new MemoryDailyLimitStorage(
          clock,
          config.get('MAX_TRACKED_CLIENTS', { infer: true }),
          undefined,
          config.get('OVERFLOW_SKETCH_MB', { infer: true }),
        ),
    },
    {
      provide: DailyLimitStorage,
      inject: [ConfigService, MemoryDailyLimitStorage, Clock],
      useFactory: dailyLimitStorage,
    },
    DailyLimitPolicy,
    { provide: getOptionsToken(), inject: [DailyLimitPolicy], useFactory: throttlerOptions },
    { provide: getStorageToken(), useExisting: DailyLimitStorage },
    { provide: APP_GUARD, useClass: DailyLimitGuard },
    DailyLimitHealthIndicator,
    DailyLimitGauges,
  ],
  exports: [DailyLimitPolicy, DailyLimitHealthIndicator],
})
export class RateLimitModule {}
