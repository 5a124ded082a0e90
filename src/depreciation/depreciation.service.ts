import { BadRequestException, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';
import type {
  DepreciationResponseDto as DepreciationResult,
  YearlyEntryDto as YearlyEntry,
} from './dto/depreciation-response.dto';
import {
  centsAt,
  entryOf,
  percentOf,
  projectionOf,
  roundHalfAwayFromZero,
  toCents,
  toUsd,
} from './projection';
import { type DepreciationStrategy, STRATEGIES, type Usage } from './strategies/strategies';

@Injectable()
export class DepreciationService {
  constructor(private readonly clock: Clock) {}

  /** Money is computed in whole cents, so the entries' depreciation adds up to the total. */
  calculate(input: DepreciationInput): DepreciationResult {
    const now = this.clock.now();
    const currentYear = now.getUTCFullYear();
    const age = currentYear - input.purchaseYear;
    // The one rule that depends on the clock, so it lives here rather than in the DTO.
    if (age < 0) throw new BadRequestException();

    const strategy = STRATEGIES[input.vehicleType];
    const priceCents = toCents(input.purchasePrice);
    const usage: Usage = { ownedYears: age, currentMileage: input.currentMileage ?? 0 };
    const { entries, currentCents } = this.breakdown(
      input.purchaseYear,
      strategy,
      usage,
      priceCents,
    );
    const lostCents = priceCents - currentCents;
    const data: DepreciationResult['data'] = {
      currentValue: toUsd(currentCents),
      totalDepreciation: toUsd(lostCents),
      totalDepreciationPercent: percentOf(lostCents, priceCents),
      monthlyDepreciation: age === 0 ? 0 : toUsd(roundHalfAwayFromZero(lostCents / (age * 12))),
      yearlyBreakdown: entries,
    };
    // Absent or 0: no key at all, so the answer is the one a client that never asks gets.
    if (input.projectionYears) {
      const { currentMileage } = usage;
      const today = { strategy, priceCents, currentYear, age, currentMileage, currentCents };
      data.projection = projectionOf(today, input.projectionYears);
    }
    return {
      success: true,
      data,
      meta: { vehicleType: input.vehicleType, vehicleAge: age, calculatedAt: now.toISOString() },
    };
  }

  private breakdown(
    purchaseYear: number,
    strategy: DepreciationStrategy,
    usage: Usage,
    priceCents: number,
  ): { entries: YearlyEntry[]; currentCents: number } {
    const { ownedYears } = usage;
    const entries: YearlyEntry[] = new Array<YearlyEntry>(ownedYears + 1);
    let previousCents = priceCents;
    for (let age = 0; age <= ownedYears; age++) {
      const cents = centsAt(strategy, priceCents, age, usage);
      entries[age] = entryOf(purchaseYear + age, age, cents, previousCents);
      previousCents = cents;
    }
    return { entries, currentCents: previousCents };
  }
}
