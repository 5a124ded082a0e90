import { Controller, Get, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { type DailyLimitHealth, DailyLimitHealthIndicator } from '../rate-limit/daily-limit.health';

/** Whether the instance is shutting down: readiness answers 503 from the signal on. */
@Injectable()
export class ShutdownState {
  draining = false;
}

function notReadyMessage(result: HealthCheckResult): string {
  const [failed] = Object.entries(result.error ?? {});
  if (!failed) return 'Not ready';
  const [name, details] = failed as [string, Record<string, unknown>];
  return `Not ready: ${typeof details.reason === 'string' ? details.reason : name}`;
}

/** For operators and load balancers, not for the API's clients. */
@ApiExcludeController()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly dailyLimit: DailyLimitHealthIndicator,
    private readonly shutdown: ShutdownState,
  ) {}

  /** Always 200 while the process answers. */
  @Get()
  check(): DailyLimitHealth {
    return this.dailyLimit.health();
  }

  /** Restart the process only when this fails. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** 503 while shutting down, or while it cannot count with the other instances. */
  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    if (this.shutdown.draining) throw new ServiceUnavailableException('Not ready: shutting down');
    try {
      return await this.health.check([() => this.dailyLimit.check('dailyLimit')]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      throw new ServiceUnavailableException(
        notReadyMessage(error.getResponse() as HealthCheckResult),
      );
    }
  }
}
