import { VehicleType } from './vehicle-type';

/** A validated request (docs/contract.md, "Request"), mileage defaulted. */
export interface DepreciationInput {
  purchaseYear: number;
  purchasePrice: number;
  vehicleType: VehicleType;
  currentMileage?: number;
}

export interface YearlyEntry {
  year: number;
  age: number;
  value: number;
  depreciation: number;
  depreciationPercent: number;
}

/** The success body (docs/contract.md, "Success answer"). */
export interface DepreciationResult {
  success: true;
  data: {
    currentValue: number;
    totalDepreciation: number;
    totalDepreciationPercent: number;
    monthlyDepreciation: number;
    yearlyBreakdown: YearlyEntry[];
  };
  meta: {
    vehicleType: VehicleType;
    vehicleAge: number;
    calculatedAt: string;
  };
}
