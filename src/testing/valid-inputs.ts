import fc from 'fast-check';
import {
  MAX_PURCHASE_PRICE,
  MIN_PURCHASE_PRICE,
  MIN_PURCHASE_YEAR,
} from '../depreciation/dto/calculate-depreciation.dto';
import { SettableClock } from './settable-clock';

/** The year the property specs value vehicles in (their clock is mid-2026). */
export const PROPERTY_YEAR = 2026;

/** The clock of the property specs: a current year of PROPERTY_YEAR. */
export const propertyClock = (): SettableClock => new SettableClock('2026-06-15T12:00:00.000Z');

/**
 * The fields of a valid request, for fast-check: every purchase year to the current one, prices
 * over the whole range (any double, and whole cents), every type, and miles from none to far past
 * every type's expected figure and the 30 % cap. `vehicleTypes` is VEHICLE_TYPES; the bounds are
 * the request DTO's own.
 */
export const validInputFields = (vehicleTypes: readonly string[]) => ({
  purchaseYear: fc.integer({ min: MIN_PURCHASE_YEAR, max: PROPERTY_YEAR }),
  purchasePrice: fc.oneof(
    fc.double({ min: MIN_PURCHASE_PRICE, max: MAX_PURCHASE_PRICE, noNaN: true }),
    fc
      .integer({ min: MIN_PURCHASE_PRICE * 100, max: MAX_PURCHASE_PRICE * 100 })
      .map((cents) => cents / 100),
  ),
  vehicleType: fc.constantFrom(...vehicleTypes),
  currentMileage: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5e6, noNaN: true })),
});
