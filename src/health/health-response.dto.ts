import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DailyLimitState } from '../rate-limit/daily-limit.storage';

export class DailyLimitStateDto implements DailyLimitState {
  @ApiProperty({ enum: ['memory', 'redis'], description: 'The configured store.' })
  store!: 'memory' | 'redis';

  @ApiProperty({
    enum: ['memory', 'redis'],
    description: 'Where this instance counts now: Redis, or its own memory while Redis is down.',
  })
  counting!: 'memory' | 'redis';

  @ApiProperty({ description: 'Whether every instance sees the same counts.' })
  shared!: boolean;

  @ApiPropertyOptional({
    description: 'With Redis: when the instance last changed where it counts.',
    example: '2026-11-21T09:30:00.123Z',
  })
  since?: string;
}

export class HealthResponseDto {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description: 'degraded: serving, but counting in memory because Redis is unavailable.',
  })
  status!: 'ok' | 'degraded';

  @ApiProperty({ type: DailyLimitStateDto })
  dailyLimit!: DailyLimitStateDto;
}
