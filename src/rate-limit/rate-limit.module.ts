import { Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ThrottlerModule, ThrottlerModuleOptions } from '@nestjs/throttler';
import { Clock } from '../common/clock';
import { Environment } from '../config/environment';
import { REDIS_SETTINGS, type RedisSettings } from '../config/redis-topology';
import { DailyLimitGuard } from './daily-limit.guard';
import { DailyLimitHealthIndicator } from './daily-limit.health';
import { DailyLimitGauges } from './daily-limit.metrics';
import { DailyLimitPolicy } from './daily-limit.policy';
import { DAILY_LIMIT_CONTEXT, DailyLimitStorage, DAY_MS } from './daily-limit.storage';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import { connectRedis } from './redis/redis-clients';
import { RedisDailyLimitStorage } from './redis/redis-daily-limit.storage';
import { Tracing } from '../tracing/tracing';

/** The store RATE_LIMIT_STORE names; the memory store doubles as Redis's fallback. */
function dailyLimitStorage(
  config: ConfigService<Environment, true>,
  memory: MemoryDailyLimitStorage,
  clock: Clock,
  tracing: Tracing,
): DailyLimitStorage {
  if (config.get('RATE_LIMIT_STORE', { infer: true }) !== 'redis') return memory;
  const settings = Object.fromEntries(
    REDIS_SETTINGS.map((name) => [name, config.get(name, { infer: true })]),
  ) as RedisSettings;
  const logger = new Logger(DAILY_LIMIT_CONTEXT);
  return new RedisDailyLimitStorage(connectRedis(settings), memory.fallback, clock, logger, {
    allowEviction: config.get('REDIS_ALLOW_EVICTION', { infer: true }),
    clockOffsetWarnMs: config.get('REDIS_CLOCK_OFFSET_WARN_MS', { infer: true }),
    tracing,
  });
}

/** Apart, so that ThrottlerModule's options can use the counters and the policy's limit. */
@Module({
  providers: [
    {
      provide: MemoryDailyLimitStorage,
      inject: [Clock, ConfigService],
      useFactory: (clock: Clock, config: ConfigService<Environment, true>) =>
        new MemoryDailyLimitStorage(
          clock,
          config.get('MAX_TRACKED_CLIENTS', { infer: true }),
          config.get('OVERFLOW_SKETCH_MB', { infer: true }),
        ),
    },
    {
      provide: DailyLimitStorage,
      inject: [ConfigService, MemoryDailyLimitStorage, Clock, Tracing],
      useFactory: dailyLimitStorage,
    },
    DailyLimitPolicy,
  ],
  exports: [MemoryDailyLimitStorage, DailyLimitStorage, DailyLimitPolicy],
})
class DailyLimitStoreModule {}

/**
 * The daily limit, whole. The global guard is DailyLimitGuard's provider, so a test replaces it
 * with `overrideProvider(DailyLimitGuard).useClass(…)`.
 */
@Module({
  imports: [
    TerminusModule,
    DiscoveryModule,
    DailyLimitStoreModule,
    // One unnamed throttler, so a plain `@SkipThrottle()` frees a route, with the policy's limit
    // and store. ThrottlerModule provides the store under its own token too, so Nest calls its
    // lifecycle hooks twice: a store must act once.
    ThrottlerModule.forRootAsync({
      imports: [DailyLimitStoreModule],
      inject: [DailyLimitPolicy],
      useFactory: (policy: DailyLimitPolicy): ThrottlerModuleOptions => ({
        throttlers: [{ limit: policy.limit, ttl: DAY_MS }],
        storage: policy.storage,
      }),
    }),
  ],
  providers: [
    DailyLimitGuard,
    { provide: APP_GUARD, useExisting: DailyLimitGuard },
    DailyLimitHealthIndicator,
    DailyLimitGauges,
  ],
  exports: [DailyLimitStoreModule, DailyLimitHealthIndicator],
})
export class RateLimitModule {}
