import { DepreciationStrategy, Usage } from './depreciation-strategy';
import { EXCESS_MILEAGE_PENALTY_PER_YEAR, FREEZE_AGE, MAX_MILEAGE_PENALTY } from './rates';

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
