import { VehicleType } from '../vehicle-type';
import { DecliningBalanceStrategy } from './declining-balance.strategy';
import { DepreciationStrategy } from './depreciation-strategy';
import { MileageAdjustedStrategy } from './mileage-adjusted.strategy';
import { RATES, RateRow } from './rates';

const decliningWithMileage = (rates: RateRow): DepreciationStrategy =>
  new MileageAdjustedStrategy(new DecliningBalanceStrategy(rates), rates.milesPerYear);

/** RATES `satisfies Record<VehicleType, RateRow>`, so a new type without rates fails to compile. */
export const STRATEGIES = Object.fromEntries(
  Object.entries(RATES).map(([type, rates]) => [type, decliningWithMileage(rates)]),
) as Record<VehicleType, DepreciationStrategy>;
