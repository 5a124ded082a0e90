import type { DepreciationInput } from '../src/depreciation/depreciation.types';
import { dist } from './project';

/**
 * The contract's field rules written by hand, for the ceilings (docs/contract.md, "Request"): a JSON
 * object with strict JSON types, no coercion, no unknown field. The upper bound of purchaseYear
 * (the current UTC year) stays with DepreciationService, as in the service.
 */
const { MIN_PURCHASE_YEAR, MAX_PURCHASE_PRICE } = dist.dto();
const VEHICLE_TYPES: ReadonlySet<unknown> = new Set(dist.vehicleTypes().VEHICLE_TYPES);
const FIELDS: ReadonlySet<string> = new Set([
  'purchaseYear',
  'purchasePrice',
  'vehicleType',
  'currentMileage',
]);

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** The valid request, or undefined for any broken rule (answered 400). */
export function validateRequest(body: unknown): DepreciationInput | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  // Object.keys sees every key JSON.parse made, `__proto__` and `constructor` included.
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) return undefined;
  const { purchaseYear, purchasePrice, vehicleType, currentMileage } = body as Record<
    string,
    unknown
  >;
  if (!Number.isInteger(purchaseYear) || (purchaseYear as number) < MIN_PURCHASE_YEAR)
    return undefined;
  if (!isFiniteNumber(purchasePrice) || purchasePrice <= 0 || purchasePrice > MAX_PURCHASE_PRICE) {
    return undefined;
  }
  if (!VEHICLE_TYPES.has(vehicleType)) return undefined;
  if (currentMileage !== undefined && (!isFiniteNumber(currentMileage) || currentMileage < 0)) {
    return undefined;
  }
  return body as DepreciationInput;
}
