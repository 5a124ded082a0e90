import { BadRequestException, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';
import type {
  DepreciationResponseDto as DepreciationResult,
  YearlyEntryDto as YearlyEntry,
} from './dto/depreciation-response.dto';
import { percentOf, roundHalfAwayFromZero, toCents, toUsd } from './money';
import { STRATEGIES } from './strategies/strategies';

@Injectable()
export class DepreciationService {
  constructor(private readonly clock: Clock) {}

  /**
   * Values the vehicle for every calendar year from its purchase to the current UTC year.
   * Money is computed in whole cents, so the entries' depreciation adds up to the total exactly.
   */
  calculate(input: DepreciationInput): DepreciationResult {
    const now = this.clock.now();
    const age = now.getUTCFullYear() - input.purchaseYear;
    // The one rule that depends on the clock, so it lives here rather than in the DTO.
    if (age < 0) throw new BadRequestException();

    const priceCents = toCents(input.purchasePrice);
    const { entries, currentCents } = this.breakdown(input, age, priceCents);
    const lostCents = priceCents - currentCents;
    return {
      success: true,
      data: {
        currentValue: toUsd(currentCents),
        totalDepreciation: toUsd(lostCents),
        totalDepreciationPercent: percentOf(lostCents, priceCents),
        monthlyDepreciation: age === 0 ? 0 : toUsd(roundHalfAwayFromZero(lostCents / (age * 12))),
        yearlyBreakdown: entries,
      },
      meta: { vehicleType: input.vehicleType, vehicleAge: age, calculatedAt: now.toISOString() },
    };
  }

  private breakdown(
    input: DepreciationInput,
    ownedYears: number,
    priceCents: number,
  ): { entries: YearlyEntry[]; currentCents: number } {
    const strategy = STRATEGIES[input.vehicleType];
    const usage = { ownedYears, currentMileage: input.currentMileage ?? 0 };
    const entries: YearlyEntry[] = new Array<YearlyEntry>(ownedYears + 1);
    let previousCents = priceCents;
    for (let age = 0; age <= ownedYears; age++) {
      const cents = roundHalfAwayFromZero(priceCents * strategy.valueAt(age, usage));
      const lost = previousCents - cents;
      entries[age] = {
        year: input.purchaseYear + age,
        age,
        value: toUsd(cents),
        depreciation: toUsd(lost),
        depreciationPercent: percentOf(lost, previousCents),
      };
      previousCents = cents;
    }
    return { entries, currentCents: previousCents };
  }
}
