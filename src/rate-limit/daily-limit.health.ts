import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { DailyLimitStorage, hasFallenBack } from '../rate-limit/daily-limit.storage';

/**
 * Up while the daily counters are where they are configured to be: always with the in-memory
 * store, and with Redis only while every instance shares its counts. An instance that has fallen
 * back to its own memory still serves, but lets each client a budget of its own: not ready.
 */
@Injectable()
export class DailyLimitHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly storage: DailyLimitStorage,
  ) {}

  check(key: string): HealthIndicatorResult {
    const state = this.storage.state();
    const session = this.indicators.check(key);
    if (hasFallenBack(state)) {
      return session.down({
        ...state,
        reason: `Redis unavailable${state.since ? ` since ${state.since}` : ''}: counting in memory`,
      });
    }
    return session.up({ ...state });
  }
}
