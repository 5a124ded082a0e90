import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { ShutdownState } from '../common/shutdown-state';
import { type DailyLimitHealth, DailyLimitHealthIndicator } from '../rate-limit/daily-limit.health';

/** The reason of the first failed check, for the `{statusCode, message}` body of a 503. */
function notReadyMessage(result: HealthCheckResult): string {
  const [failed] = Object.entries(result.error ?? {});
  if (!failed) return 'Not ready';
  const [name, details] = failed as [string, Record<string, unknown>];
  return `Not ready: ${typeof details.reason === 'string' ? details.reason : name}`;
}

/**
 * Whether the instance serves, and where its daily counters are. For operators and load
 * balancers, so not counted against the limit and not part of the public API document.
 */
@ApiExcludeController()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly dailyLimit: DailyLimitHealthIndicator,
    private readonly shutdown: ShutdownState,
  ) {}

  /** The store's state, always 200 while the process answers. */
  @Get()
  check(): DailyLimitHealth {
    return this.dailyLimit.health();
  }

  /** Liveness: the process answers. Restart it only when this fails. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** Readiness: 503 with the reason while shutting down, or while it cannot count with the others. */
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
