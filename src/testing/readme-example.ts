/**
 * The README's example, valued at 2026-11-21T09:30:00.123Z: a 2020 sedan bought for 25,000 with
 * 50,000 miles. Pinned whole by the unit and e2e tests; recomputed by hand from docs/model.md's sedan row
 * (18 % then 12.5 % a year, no excess miles: 8,333 a year is under 13,500).
 */
export const README_EXAMPLE_AT = '2026-11-21T09:30:00.123Z';

export const README_EXAMPLE_REQUEST = {
  purchaseYear: 2020,
  purchasePrice: 25000,
  vehicleType: 'sedan',
  currentMileage: 50000,
} as const;

export const README_EXAMPLE_ANSWER = {
  success: true,
  data: {
    currentValue: 10514.63,
    totalDepreciation: 14485.37,
    totalDepreciationPercent: 57.94,
    monthlyDepreciation: 201.19,
    yearlyBreakdown: [
      { year: 2020, age: 0, value: 25000, depreciation: 0, depreciationPercent: 0 },
      { year: 2021, age: 1, value: 20500, depreciation: 4500, depreciationPercent: 18 },
      { year: 2022, age: 2, value: 17937.5, depreciation: 2562.5, depreciationPercent: 12.5 },
      { year: 2023, age: 3, value: 15695.31, depreciation: 2242.19, depreciationPercent: 12.5 },
      { year: 2024, age: 4, value: 13733.4, depreciation: 1961.91, depreciationPercent: 12.5 },
      { year: 2025, age: 5, value: 12016.72, depreciation: 1716.68, depreciationPercent: 12.5 },
      { year: 2026, age: 6, value: 10514.63, depreciation: 1502.09, depreciationPercent: 12.5 },
    ],
  },
  meta: { vehicleType: 'sedan', vehicleAge: 6, calculatedAt: README_EXAMPLE_AT },
};
