import { BadRequestException, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';
import type { DepreciationResponseDto as DepreciationResult } from './dto/depreciation-response.dto';
import { percentOf, roundHalfAwayFromZero, toCents, toUsd, yearlyEntries } from './projection';
import { STRATEGIES, type Usage } from './strategies/strategies';

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
    const valuation = { strategy, priceCents, purchaseYear: input.purchaseYear };
    const breakdown = yearlyEntries(valuation, { from: 0, to: age }, priceCents, () => usage);
    const { entries, lastCents: currentCents } = breakdown;
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
      // Valued as the breakdown values its last entry (docs/model.md, "Projection"), at today's
      // pace, never with today's usage, whose even accrual would divide by the age (0 at first).
      const pace = usage.currentMileage / Math.max(age, 1);
      const ahead = { from: age + 1, to: age + input.projectionYears };
      const usageAt = (owned: number) => ({ ownedYears: owned, currentMileage: pace * owned });
      data.projection = yearlyEntries(valuation, ahead, currentCents, usageAt).entries;
    }
    return {
      success: true,
      data,
      meta: { vehicleType: input.vehicleType, vehicleAge: age, calculatedAt: now.toISOString() },
    };
  }
}
