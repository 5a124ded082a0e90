import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DailyLimitStorage } from '../rate-limit/daily-limit.storage';
import { SkipDailyLimit } from '../rate-limit/skip-daily-limit.decorator';
import { HealthResponseDto } from './health-response.dto';

/** Whether the instance serves, and where its daily counters are. Not counted against the limit. */
@ApiTags('health')
@SkipDailyLimit()
@Controller('health')
export class HealthController {
  constructor(private readonly storage: DailyLimitStorage) {}

  @Get()
  @ApiOperation({ summary: 'Health of this instance and of its daily counters (not counted)' })
  @ApiOkResponse({ type: HealthResponseDto })
  check(): HealthResponseDto {
    const dailyLimit = this.storage.state();
    const degraded = dailyLimit.store === 'redis' && !dailyLimit.shared;
    return { status: degraded ? 'degraded' : 'ok', dailyLimit };
  }
}
