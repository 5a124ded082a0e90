import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DailyLimitStorageModule } from '../rate-limit/rate-limit.module';
import { DailyLimitHealthIndicator } from './daily-limit.health';
import { DailyLimitMetrics } from './daily-limit.metrics';
import { HealthController } from './health.controller';

@Module({
  // Terminus's own logger is off: the storage logs each switch to and from Redis once.
  imports: [TerminusModule.forRoot({ logger: false }), DailyLimitStorageModule],
  controllers: [HealthController],
  providers: [DailyLimitHealthIndicator, DailyLimitMetrics],
})
export class HealthModule {}
