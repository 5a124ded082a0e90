import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { HealthController, ShutdownState } from './health.controller';

@Module({
  // Terminus's own logger is off: the storage logs each switch to and from Redis once.
  imports: [TerminusModule.forRoot({ logger: false }), RateLimitModule],
  controllers: [HealthController],
  providers: [ShutdownState],
})
export class HealthModule {}
