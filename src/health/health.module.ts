import { Module } from '@nestjs/common';
import { DailyLimitStorageModule } from '../rate-limit/rate-limit.module';
import { HealthController } from './health.controller';

@Module({
  imports: [DailyLimitStorageModule],
  controllers: [HealthController],
})
export class HealthModule {}
