import { EXCESS_MILEAGE_PENALTY_PER_YEAR, FREEZE_AGE, MAX_MILEAGE_PENALTY, RATES } from './rates';
import type { RateRow, VehicleType } from './rates';

export interface Usage {
  /** The age of the last breakdown entry. */
  readonly ownedYears: number;
  /** 0 when the client sent none. */
  readonly currentMileage: number;
}

/** The share of the price (0 to 1) a vehicle is worth at `age`; never more at a higher age. */
export interface DepreciationStrategy {
  valueAt(age: number, usage: Usage): number;
}

/** docs/model.md, "Age curve". */
export class DecliningBalanceStrategy implements DepreciationStrategy {
  constructor(private readonly rates: Pick<RateRow, 'firstYear' | 'laterYears' | 'floor'>) {}

  valueAt(age: number): number {
    if (age <= 0) return 1;
    const { firstYear, laterYears, floor } = this.rates;
    const years = Math.min(age, FREEZE_AGE);
    return Math.max(floor, (1 - firstYear) * (1 - laterYears) ** (years - 1));
  }
}

/**
 * Miles accrue evenly over the years owned. Low mileage earns no bonus (an omitted mileage is 0)
 * and the penalty only grows with age, so values still never rise.
 */
export class MileageAdjustedStrategy implements DepreciationStrategy {
  constructor(
    private readonly base: DepreciationStrategy,
    private readonly milesPerYear: number,
  ) {}

  valueAt(age: number, usage: Usage): number {
    const value = this.base.valueAt(age, usage);
    if (age <= 0 || usage.currentMileage <= 0) return value;
    const years = Math.min(age, FREEZE_AGE);
    const driven = (usage.currentMileage * years) / usage.ownedYears;
    const excessYears = Math.max(0, driven - this.milesPerYear * years) / this.milesPerYear;
    const penalty = Math.min(MAX_MILEAGE_PENALTY, EXCESS_MILEAGE_PENALTY_PER_YEAR * excessYears);
    return value * (1 - penalty);
  }
}

const decliningWithMileage = (rates: RateRow): DepreciationStrategy =>
  new MileageAdjustedStrategy(new DecliningBalanceStrategy(rates), rates.milesPerYear);

/** A vehicle type is a key of RATES, so every type has its rates and its strategy. */
export const STRATEGIES = Object.fromEntries(
  Object.entries(RATES).map(([type, rates]) => [type, decliningWithMileage(rates)]),
) as Record<VehicleType, DepreciationStrategy>;
