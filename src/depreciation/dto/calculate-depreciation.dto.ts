import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsInt, IsNumber, Max, Min, ValidateIf } from 'class-validator';
import { ValidationPrecheck } from '../../common/strict-validation.pipe';
import { VEHICLE_TYPES, type VehicleType } from '../strategies/rates';

export const MIN_PURCHASE_YEAR = 1900;
export const MAX_PURCHASE_PRICE = 10_000_000;
/**
 * One cent: money is computed in cents, so a smaller price would round to 0 (or up, above itself)
 * and break "the first entry is the price". SPEC's "positive", taken to the cent.
 */
export const MIN_PURCHASE_PRICE = 0.01;
/** Ten years of one unchanged pace is already a stretch. */
export const MAX_PROJECTION_YEARS = 10;

const FIELDS = new Set(
  'purchaseYear purchasePrice vehicleType currentMileage projectionYears'.split(' '),
);
const TYPES = new Set<unknown>(VEHICLE_TYPES);

/** NaN and ±Infinity fail the bounds. */
const isNumberIn = (value: unknown, min: number, max = Number.MAX_VALUE): boolean =>
  typeof value === 'number' && value >= min && value <= max;

const isIntegerIn = (value: unknown, min: number, max = Number.MAX_VALUE): boolean =>
  Number.isInteger(value) && isNumberIn(value, min, max);

/**
 * The rules below, written out by hand for the hot path (see ValidationPrecheck); the property
 * test in calculate-depreciation.dto.spec.ts holds it to the decorators.
 */
export function isValidDepreciationBody(body: Record<string, unknown>): boolean {
  for (const key in body) if (!FIELDS.has(key)) return false;
  const { purchaseYear, purchasePrice, vehicleType, currentMileage, projectionYears } = body;
  return (
    isIntegerIn(purchaseYear, MIN_PURCHASE_YEAR) &&
    isNumberIn(purchasePrice, MIN_PURCHASE_PRICE, MAX_PURCHASE_PRICE) &&
    TYPES.has(vehicleType) &&
    (currentMileage === undefined || isNumberIn(currentMileage, 0)) &&
    (projectionYears === undefined || isIntegerIn(projectionYears, 0, MAX_PROJECTION_YEARS))
  );
}

/**
 * Strict JSON types, no coercion (docs/contract.md, "Request"). The upper bound of purchaseYear is
 * checked by DepreciationService, which owns the clock.
 */
@ValidationPrecheck(isValidDepreciationBody)
@ApiSchema({ name: 'DepreciationRequest' })
export class CalculateDepreciationDto {
  @ApiProperty({
    description: `Year of purchase: an integer from ${MIN_PURCHASE_YEAR} up to the current UTC year.`,
    type: 'integer',
    minimum: MIN_PURCHASE_YEAR,
    example: 2020,
  })
  @IsInt()
  @Min(MIN_PURCHASE_YEAR)
  purchaseYear!: number;

  @ApiProperty({
    description: `Purchase price in USD: from ${MIN_PURCHASE_PRICE} (one cent) to ${MAX_PURCHASE_PRICE.toLocaleString('en-US')}. Taken to the cent.`,
    minimum: MIN_PURCHASE_PRICE,
    maximum: MAX_PURCHASE_PRICE,
    example: 25000,
  })
  @IsNumber()
  @Min(MIN_PURCHASE_PRICE)
  @Max(MAX_PURCHASE_PRICE)
  purchasePrice!: number;

  @ApiProperty({ enum: VEHICLE_TYPES, enumName: 'VehicleType', example: 'sedan' })
  @IsIn(VEHICLE_TYPES)
  vehicleType!: VehicleType;

  @ApiPropertyOptional({
    description: 'Current mileage in miles: 0 or more. Omitted is the same as 0.',
    minimum: 0,
    default: 0,
    example: 50000,
  })
  // Not @IsOptional(): that would let `null` through, and null is not a number.
  @ValidateIf((_dto, value) => value !== undefined)
  @IsNumber()
  @Min(0)
  currentMileage?: number;

  @ApiPropertyOptional({
    description:
      `Years to project after the current one: an integer from 0 to ${MAX_PROJECTION_YEARS}. ` +
      'Omitted is the same as 0: no projection, and the answer has no `projection` field.',
    type: 'integer',
    minimum: 0,
    maximum: MAX_PROJECTION_YEARS,
    default: 0,
    example: 5,
  })
  @ValidateIf((_dto, value) => value !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_PROJECTION_YEARS)
  projectionYears?: number;
}
