import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { VEHICLE_TYPES, type VehicleType } from '../strategies/rates';

/** The service returns plain objects of these shapes (docs/contract.md, "Success answer"). */
@ApiSchema({ name: 'YearlyEntry' })
export class YearlyEntryDto {
  @ApiProperty({ description: 'Calendar year of the entry.', example: 2021 })
  year!: number;

  @ApiProperty({ description: 'Age in years at that entry (0 in the purchase year).', example: 1 })
  age!: number;

  @ApiProperty({ description: 'Estimated value in USD, to the cent.', example: 20500 })
  value!: number;

  @ApiProperty({ description: "USD lost since the previous entry's value.", example: 4500 })
  depreciation!: number;

  @ApiProperty({ description: "That year's loss as a % of the previous value.", example: 18 })
  depreciationPercent!: number;
}

@ApiSchema({ name: 'DepreciationData' })
class DepreciationDataDto {
  @ApiProperty({
    description: 'Estimated current value in USD (the last entry).',
    example: 12016.72,
  })
  currentValue!: number;

  @ApiProperty({ description: 'Purchase price − current value, USD.', example: 12983.28 })
  totalDepreciation!: number;

  @ApiProperty({ description: 'Total depreciation as % of the price.', example: 51.93 })
  totalDepreciationPercent!: number;

  @ApiProperty({ description: 'Total depreciation ÷ months owned (0 at age 0).', example: 216.39 })
  monthlyDepreciation!: number;

  @ApiProperty({
    type: [YearlyEntryDto],
    description: 'One entry per calendar year from the purchase year to the current year.',
  })
  yearlyBreakdown!: YearlyEntryDto[];

  @ApiPropertyOptional({
    type: [YearlyEntryDto],
    description:
      'Only when the request asks for `projectionYears` ≥ 1: one entry per year after the current ' +
      "one, shaped like the breakdown's (the first loss is from `currentValue`). It assumes the " +
      'vehicle keeps its pace (current mileage ÷ max(age, 1) miles a year) and the market behaves as ' +
      'the rates say: the entry k years ahead is the current value of the same vehicle bought k ' +
      'years earlier with pace × (age + k) miles.',
  })
  projection?: YearlyEntryDto[];
}

@ApiSchema({ name: 'DepreciationMeta' })
class DepreciationMetaDto {
  @ApiProperty({ enum: VEHICLE_TYPES, enumName: 'VehicleType', example: 'sedan' })
  vehicleType!: VehicleType;

  @ApiProperty({ description: 'Current UTC year − purchase year.', example: 5 })
  vehicleAge!: number;

  @ApiProperty({
    description: 'ISO 8601 UTC with milliseconds.',
    example: '2025-11-21T09:30:00.123Z',
  })
  calculatedAt!: string;
}

@ApiSchema({ name: 'DepreciationResponse' })
export class DepreciationResponseDto {
  @ApiProperty({ example: true })
  success!: true;

  @ApiProperty({ type: DepreciationDataDto })
  data!: DepreciationDataDto;

  @ApiProperty({ type: DepreciationMetaDto })
  meta!: DepreciationMetaDto;
}
