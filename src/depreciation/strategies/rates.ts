import { VehicleType } from '../vehicle-type';

/** One row of the calibration: shares are fractions of the price (0.18 = 18 %). */
export interface RateRow {
  /** Share of the value lost in the first year. */
  readonly firstYear: number;
  /** Share of the remaining value lost in each later year (declining balance). */
  readonly laterYears: number;
  /** The value never falls below this share of the price through age alone. */
  readonly floor: number;
  /** Miles a year that cost nothing; only miles above this lower the value. */
  readonly milesPerYear: number;
  /** Where the numbers come from (docs/model.md, "Rates and sources"). */
  readonly source: string;
}

/** No further decline after this age: an antique keeps its value (AACA: antique = over 25 years). */
export const FREEZE_AGE = 25;
/** Each year's worth of excess miles takes this share off that year's value. */
export const EXCESS_MILEAGE_PENALTY_PER_YEAR = 0.04;
/** The mileage adjustment never takes more than this share off. */
export const MAX_MILEAGE_PENALTY = 0.3;

/**
 * The calibration, one place to recalibrate: declining balance with a first-year drop and a floor.
 * 5-year losses follow from (1 − f)(1 − r)^4; the anchors are published 5-year losses
 * (docs/model.md). Floors follow state tax schedules, which bottom out at 9–15 % of the price
 * (Montana MCA 61-3-503, Nevada NRS 371.060, Massachusetts excise). Expected miles: FHWA 13,476
 * miles per driver per year.
 */
export const RATES = {
  sedan: {
    firstYear: 0.18,
    laterYears: 0.125,
    floor: 0.1,
    milesPerYear: 13_500,
    source: '5-year loss 52 %: KBB ~55 %, Edmunds ~60 %, iSeeCars cars 54 % (2018)',
  },
  economy: {
    firstYear: 0.15,
    laterYears: 0.12,
    floor: 0.1,
    milesPerYear: 13_500,
    source: '5-year loss 49 %: iSeeCars non-luxury 36.8 % vs 38.8 % overall (2023)',
  },
  suv: {
    firstYear: 0.15,
    laterYears: 0.115,
    floor: 0.12,
    milesPerYear: 13_500,
    source: '5-year loss 48 %: iSeeCars SUVs 48.9 % (2025), 41.2 % (2023), 51.6 % (2019)',
  },
  truck: {
    firstYear: 0.12,
    laterYears: 0.09,
    floor: 0.15,
    milesPerYear: 13_500,
    source: '5-year loss 40 %: iSeeCars trucks 40.4 % (2025), 34.8 % (2023), 42.7 % (2019)',
  },
  luxury: {
    firstYear: 0.22,
    laterYears: 0.15,
    floor: 0.08,
    milesPerYear: 13_500,
    source:
      '5-year loss 59 %: iSeeCars luxury 48.1 % vs 38.8 % overall (2023); luxury sedans 51–56 % at 3 years',
  },
  sports: {
    firstYear: 0.15,
    laterYears: 0.09,
    floor: 0.15,
    milesPerYear: 10_000,
    source:
      '5-year loss 42 %: iSeeCars, sports cars among the best retainers (wide spread by model)',
  },
  ev: {
    firstYear: 0.25,
    laterYears: 0.14,
    floor: 0.08,
    milesPerYear: 13_500,
    source: '5-year loss 59 %: iSeeCars EVs 58.8 % (2025), 49.1 % (2023), 67.1 % (2019)',
  },
  motorcycle: {
    firstYear: 0.15,
    laterYears: 0.08,
    floor: 0.1,
    milesPerYear: 3_000,
    source:
      '5-year loss 39 %: ~20 % by year 2, then ~5 %/yr (Bennetts BikeSocial, AutoApprove); KBB motorcycle guide 3,000 mi/yr',
  },
  rv: {
    firstYear: 0.2,
    laterYears: 0.11,
    floor: 0.1,
    milesPerYear: 5_000,
    source:
      '5-year loss 50 %: 49–66 % at 5 years by class (godownsize RV guide); RVIA ~4,500 mi/yr',
  },
} as const satisfies Record<VehicleType, RateRow>;
