import { VehicleType } from '../vehicle-type';
import { DecliningBalanceStrategy } from './declining-balance.strategy';
import { DepreciationStrategy } from './depreciation-strategy';
import { MileageAdjustedStrategy } from './mileage-adjusted.strategy';
import { RATES, RateRow } from './rates';

const decliningWithMileage = (rates: RateRow): DepreciationStrategy =>
  new MileageAdjustedStrategy(new DecliningBalanceStrategy(rates), rates.milesPerYear);

/** One strategy per vehicle type: a new type without one fails to compile. */
export const STRATEGIES = {
  sedan: decliningWithMileage(RATES.sedan),
  suv: decliningWithMileage(RATES.suv),
  truck: decliningWithMileage(RATES.truck),
  luxury: decliningWithMileage(RATES.luxury),
  economy: decliningWithMileage(RATES.economy),
  sports: decliningWithMileage(RATES.sports),
  ev: decliningWithMileage(RATES.ev),
  motorcycle: decliningWithMileage(RATES.motorcycle),
  rv: decliningWithMileage(RATES.rv),
} as const satisfies Record<VehicleType, DepreciationStrategy>;
