import { README_EXAMPLE_AT } from './readme-example';

/**
 * The whole answers test/depreciation.e2e-spec.ts expects, written down: the README's example (a
 * 2020 sedan bought for 25,000 with 50,000 miles, valued at README_EXAMPLE_AT, 2026) with one field
 * changed. They follow from docs/model.md's rates table (curve, floor, freeze at 25, the mileage
 * penalty) and docs/contract.md's rounding (whole cents and 2-decimal percentages, half away from
 * zero; each entry's loss from the rounded values). They were computed once from those two
 * documents alone, in exact rational arithmetic, found equal to what DepreciationService answers,
 * and checked by hand in part, e.g.:
 * - truck: 25,000 × 0.88 = 22,000, × 0.91 = 20,020, × 0.91 = 18,218.20; lost 11,271.29 is 45.09 %,
 *   and 11,271.29 / 72 months = 156.55;
 * - motorcycle (3,000 miles a year expected, 8,333.33 driven): at age 1 the excess is 1.78 years,
 *   a 7.11 % penalty: 21,250 × 0.928889 = 19,738.89; from age 5 the penalty is capped at 30 %;
 * - rv at age 6: 0.8 × 0.89^5 = 0.446725, less 16 % for 4 years of excess miles: 9,381.22;
 * - 1900: 0.82 × 0.875^16 = 0.0968 is under the 10 % floor, so from age 17 the value is 2,500;
 * - one cent: 0.82 × 0.875^4 = 0.4807 of a cent rounds to 0 at age 5.
 * A change to the rates is a change to these figures, by hand, with docs/model.md.
 */

type Row = [value: number, depreciation: number, depreciationPercent: number];
interface Totals {
  currentValue: number;
  totalDepreciation: number;
  totalDepreciationPercent: number;
  monthlyDepreciation: number;
}

/** `count` entries with nothing lost: the value frozen at `value`. */
const frozen = (count: number, value: number): Row[] =>
  Array.from({ length: count }, () => [value, 0, 0]);

/** The whole answer: `rows` holds one [value, depreciation, %] per age from 0, from `year`. */
const answer = (vehicleType: string, totals: Totals, year: number, rows: Row[]) => ({
  success: true,
  data: {
    ...totals,
    yearlyBreakdown: rows.map(([value, depreciation, depreciationPercent], age) => ({
      year: year + age,
      age,
      value,
      depreciation,
      depreciationPercent,
    })),
  },
  meta: { vehicleType, vehicleAge: rows.length - 1, calculatedAt: README_EXAMPLE_AT },
});

export const MODEL_ANSWERS = {
  purchaseYear1900: answer(
    'sedan',
    {
      currentValue: 2500,
      totalDepreciation: 22500,
      totalDepreciationPercent: 90,
      monthlyDepreciation: 14.88,
    },
    1900,
    [
      [25000, 0, 0],
      [20500, 4500, 18],
      [17937.5, 2562.5, 12.5],
      [15695.31, 2242.19, 12.5],
      [13733.4, 1961.91, 12.5],
      [12016.72, 1716.68, 12.5],
      [10514.63, 1502.09, 12.5],
      [9200.3, 1314.33, 12.5],
      [8050.27, 1150.03, 12.5],
      [7043.98, 1006.29, 12.5],
      [6163.48, 880.5, 12.5],
      [5393.05, 770.43, 12.5],
      [4718.92, 674.13, 12.5],
      [4129.05, 589.87, 12.5],
      [3612.92, 516.13, 12.5],
      [3161.31, 451.61, 12.5],
      [2766.14, 395.17, 12.5],
      [2500, 266.14, 9.62],
      // Ages 18 to 126: on the floor, and frozen from age 25.
      ...frozen(109, 2500),
    ],
  ),
  currentYear: answer(
    'sedan',
    {
      currentValue: 25000,
      totalDepreciation: 0,
      totalDepreciationPercent: 0,
      monthlyDepreciation: 0,
    },
    2026,
    [[25000, 0, 0]],
  ),
  oneCent: answer(
    'sedan',
    {
      currentValue: 0,
      totalDepreciation: 0.01,
      totalDepreciationPercent: 100,
      monthlyDepreciation: 0,
    },
    2020,
    [
      [0.01, 0, 0],
      [0.01, 0, 0],
      [0.01, 0, 0],
      [0.01, 0, 0],
      [0.01, 0, 0],
      [0, 0.01, 100],
      [0, 0, 0],
    ],
  ),
  largeMileage: answer(
    'sedan',
    {
      currentValue: 7360.24,
      totalDepreciation: 17639.76,
      totalDepreciationPercent: 70.56,
      monthlyDepreciation: 245,
    },
    2020,
    [
      [25000, 0, 0],
      [14350, 10650, 42.6],
      [12556.25, 1793.75, 12.5],
      [10986.72, 1569.53, 12.5],
      [9613.38, 1373.34, 12.5],
      [8411.71, 1201.67, 12.5],
      [7360.24, 1051.47, 12.5],
    ],
  ),
  suv: answer(
    'suv',
    {
      currentValue: 11536.53,
      totalDepreciation: 13463.47,
      totalDepreciationPercent: 53.85,
      monthlyDepreciation: 186.99,
    },
    2020,
    [
      [25000, 0, 0],
      [21250, 3750, 15],
      [18806.25, 2443.75, 11.5],
      [16643.53, 2162.72, 11.5],
      [14729.53, 1914, 11.5],
      [13035.63, 1693.9, 11.5],
      [11536.53, 1499.1, 11.5],
    ],
  ),
  truck: answer(
    'truck',
    {
      currentValue: 13728.71,
      totalDepreciation: 11271.29,
      totalDepreciationPercent: 45.09,
      monthlyDepreciation: 156.55,
    },
    2020,
    [
      [25000, 0, 0],
      [22000, 3000, 12],
      [20020, 1980, 9],
      [18218.2, 1801.8, 9],
      [16578.56, 1639.64, 9],
      [15086.49, 1492.07, 9],
      [13728.71, 1357.78, 9],
    ],
  ),
  luxury: answer(
    'luxury',
    {
      currentValue: 8652.25,
      totalDepreciation: 16347.75,
      totalDepreciationPercent: 65.39,
      monthlyDepreciation: 227.05,
    },
    2020,
    [
      [25000, 0, 0],
      [19500, 5500, 22],
      [16575, 2925, 15],
      [14088.75, 2486.25, 15],
      [11975.44, 2113.31, 15],
      [10179.12, 1796.32, 15],
      [8652.25, 1526.87, 15],
    ],
  ),
  economy: answer(
    'economy',
    {
      currentValue: 11214.3,
      totalDepreciation: 13785.7,
      totalDepreciationPercent: 55.14,
      monthlyDepreciation: 191.47,
    },
    2020,
    [
      [25000, 0, 0],
      [21250, 3750, 15],
      [18700, 2550, 12],
      [16456, 2244, 12],
      [14481.28, 1974.72, 12],
      [12743.53, 1737.75, 12],
      [11214.3, 1529.23, 12],
    ],
  ),
  sports: answer(
    'sports',
    {
      currentValue: 13260.68,
      totalDepreciation: 11739.32,
      totalDepreciationPercent: 46.96,
      monthlyDepreciation: 163.05,
    },
    2020,
    [
      [25000, 0, 0],
      [21250, 3750, 15],
      [19337.5, 1912.5, 9],
      [17597.13, 1740.37, 9],
      [16013.38, 1583.75, 9],
      [14572.18, 1441.2, 9],
      [13260.68, 1311.5, 9],
    ],
  ),
  ev: answer(
    'ev',
    {
      currentValue: 8820.51,
      totalDepreciation: 16179.49,
      totalDepreciationPercent: 64.72,
      monthlyDepreciation: 224.72,
    },
    2020,
    [
      [25000, 0, 0],
      [18750, 6250, 25],
      [16125, 2625, 14],
      [13867.5, 2257.5, 14],
      [11926.05, 1941.45, 14],
      [10256.4, 1669.65, 14],
      [8820.51, 1435.89, 14],
    ],
  ),
  motorcycle: answer(
    'motorcycle',
    {
      currentValue: 9803.84,
      totalDepreciation: 15196.16,
      totalDepreciationPercent: 60.78,
      monthlyDepreciation: 211.06,
    },
    2020,
    [
      [25000, 0, 0],
      [19738.89, 5261.11, 21.04],
      [16769.56, 2969.33, 15.04],
      [14148.99, 2620.57, 15.63],
      [11840.38, 2308.61, 16.32],
      [10656.35, 1184.03, 10],
      [9803.84, 852.51, 8],
    ],
  ),
  rv: answer(
    'rv',
    {
      currentValue: 9381.22,
      totalDepreciation: 15618.78,
      totalDepreciationPercent: 62.48,
      monthlyDepreciation: 216.93,
    },
    2020,
    [
      [25000, 0, 0],
      [19466.67, 5533.33, 22.13],
      [16850.67, 2616, 13.44],
      [14574.64, 2276.03, 13.51],
      [12595.45, 1979.19, 13.58],
      [10875.32, 1720.13, 13.66],
      [9381.22, 1494.1, 13.74],
    ],
  ),
};
