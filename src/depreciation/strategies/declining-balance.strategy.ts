import { DepreciationStrategy } from './depreciation-strategy';
import { FREEZE_AGE, RateRow } from './rates';

/**
 * Declining balance with a first-year drop: (1 − f)(1 − r)^(age − 1), never below the floor,
 * and no further decline after FREEZE_AGE.
 */
export class DecliningBalanceStrategy implements DepreciationStrategy {
  constructor(private readonly rates: Pick<RateRow, 'firstYear' | 'laterYears' | 'floor'>) {}

  valueAt(age: number): number {
    if (age <= 0) return 1;
    const { firstYear, laterYears, floor } = this.rates;
    const years = Math.min(age, FREEZE_AGE);
    return Math.max(floor, (1 - firstYear) * (1 - laterYears) ** (years - 1));
  }
}
