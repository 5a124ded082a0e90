/** Shares are fractions of the price (0.18 = 18 %). */
export interface RateRow {
  readonly firstYear: number;
  /** Of the remaining value (declining balance). */
  readonly laterYears: number;
  /** Age alone never takes the value below this share of the price. */
  readonly floor: number;
  /** Only miles above this lower the value. */
  readonly milesPerYear: number;
  /** docs/model.md, "Rates and sources". */
  readonly source: string;
}

/** An antique keeps its value (AACA: antique = over 25 years). */
export const FREEZE_AGE = 25;
export const EXCESS_MILEAGE_PENALTY_PER_YEAR = 0.04;
export const MAX_MILEAGE_PENALTY = 0.3;

const row = (rates: Omit<RateRow, 'source'>, source: string): RateRow => ({ ...rates, source });

/** 5-year losses, floors and expected miles are anchored on published figures (docs/model.md). */
export const RATES = {
  sedan: row(
    { firstYear: 0.18, laterYears: 0.125, floor: 0.1, milesPerYear: 13_500 },
    '5-year loss 52 %: KBB ~55 %, Edmunds ~60 %, iSeeCars cars 54 % (2018)',
  ),
  suv: row(
    { firstYear: 0.15, laterYears: 0.115, floor: 0.12, milesPerYear: 13_500 },
    '5-year loss 48 %: iSeeCars SUVs 48.9 % (2025), 41.2 % (2023), 51.6 % (2019)',
  ),
  truck: row(
    { firstYear: 0.12, laterYears: 0.09, floor: 0.15, milesPerYear: 13_500 },
    '5-year loss 40 %: iSeeCars trucks 40.4 % (2025), 34.8 % (2023), 42.7 % (2019)',
  ),
  luxury: row(
    { firstYear: 0.22, laterYears: 0.15, floor: 0.08, milesPerYear: 13_500 },
    '5-year loss 59 %: iSeeCars luxury 48.1 % vs 38.8 % overall (2023); luxury sedans 51–56 % at 3 years',
  ),
  economy: row(
    { firstYear: 0.15, laterYears: 0.12, floor: 0.1, milesPerYear: 13_500 },
    '5-year loss 49 %: iSeeCars non-luxury 36.8 % vs 38.8 % overall (2023)',
  ),
  sports: row(
    { firstYear: 0.15, laterYears: 0.09, floor: 0.15, milesPerYear: 10_000 },
    '5-year loss 42 %: iSeeCars, sports cars among the best retainers (wide spread by model)',
  ),
  ev: row(
    { firstYear: 0.25, laterYears: 0.14, floor: 0.08, milesPerYear: 13_500 },
    '5-year loss 59 %: iSeeCars EVs 58.8 % (2025), 49.1 % (2023), 67.1 % (2019)',
  ),
  motorcycle: row(
    { firstYear: 0.15, laterYears: 0.08, floor: 0.1, milesPerYear: 3_000 },
    '5-year loss 39 %: ~20 % by year 2, then ~5 %/yr (Bennetts BikeSocial, AutoApprove); KBB motorcycle guide 3,000 mi/yr',
  ),
  rv: row(
    { firstYear: 0.2, laterYears: 0.11, floor: 0.1, milesPerYear: 5_000 },
    '5-year loss 50 %: 49–66 % at 5 years by class (godownsize RV guide); RVIA ~4,500 mi/yr',
  ),
};

/** Exactly as a client sends them, in the contract's order (docs/contract.md, "Request"). */
export type VehicleType = keyof typeof RATES;
export const VEHICLE_TYPES = Object.keys(RATES) as readonly VehicleType[];
