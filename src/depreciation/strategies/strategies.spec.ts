import { FREEZE_AGE, MAX_MILEAGE_PENALTY, RATES, VEHICLE_TYPES, VehicleType } from './rates';
import { DecliningBalanceStrategy, MileageAdjustedStrategy, STRATEGIES } from './strategies';

const usage = (ownedYears: number, currentMileage = 0) => ({ ownedYears, currentMileage });

/** The "5-year loss (model)" column of docs/model.md, in %. */
const FIVE_YEAR_LOSS: Record<VehicleType, number> = {
  sedan: 52,
  economy: 49,
  suv: 48,
  truck: 40,
  luxury: 59,
  sports: 42,
  ev: 59,
  motorcycle: 39,
  rv: 50,
};

describe('per-type strategies', () => {
  it('has a sourced rates row for each of the nine types', () => {
    for (const type of VEHICLE_TYPES) expect(RATES[type].source).toMatch(/\d+ %/);
  });

  describe.each(VEHICLE_TYPES.map((type) => [type]))('%s', (type: VehicleType) => {
    const strategy = STRATEGIES[type];
    const rates = RATES[type];

    it('is worth the whole price at age 0, whatever the mileage', () => {
      expect(strategy.valueAt(0, usage(0, 1_000_000))).toBe(1);
      expect(strategy.valueAt(0, usage(10, 1_000_000))).toBe(1);
    });

    it('loses the first-year drop in year 1 at expected mileage', () => {
      expect(strategy.valueAt(1, usage(1, rates.milesPerYear))).toBeCloseTo(
        1 - rates.firstYear,
        12,
      );
    });

    it('loses the 5-year figure of docs/model.md at expected mileage', () => {
      const loss = (1 - strategy.valueAt(5, usage(5, 5 * rates.milesPerYear))) * 100;
      expect(Math.round(loss)).toBe(FIVE_YEAR_LOSS[type]);
    });

    it('follows the declining balance year by year until the floor', () => {
      for (let age = 2; age <= 10; age++) {
        const expected = (1 - rates.firstYear) * (1 - rates.laterYears) ** (age - 1);
        expect(strategy.valueAt(age, usage(age))).toBeCloseTo(Math.max(rates.floor, expected), 12);
      }
    });

    it(`never falls below the floor through age alone, and stops declining after ${FREEZE_AGE}`, () => {
      expect(strategy.valueAt(100, usage(100))).toBe(strategy.valueAt(FREEZE_AGE, usage(100)));
      expect(strategy.valueAt(FREEZE_AGE, usage(FREEZE_AGE))).toBeGreaterThanOrEqual(rates.floor);
      expect(strategy.valueAt(60, usage(60))).toBe(
        Math.max(rates.floor, (1 - rates.firstYear) * (1 - rates.laterYears) ** (FREEZE_AGE - 1)),
      );
    });

    it('takes 4 % per year of excess miles, carried year by year', () => {
      // 3 years owned, driven at twice the expected rate: at age a, a years' worth of excess.
      const mileage = 3 * 2 * rates.milesPerYear;
      for (const age of [1, 2, 3]) {
        const base = strategy.valueAt(age, usage(3));
        expect(strategy.valueAt(age, usage(3, mileage))).toBeCloseTo(base * (1 - 0.04 * age), 12);
      }
    });

    it(`caps the mileage penalty at ${MAX_MILEAGE_PENALTY * 100} %`, () => {
      const base = strategy.valueAt(4, usage(4));
      expect(strategy.valueAt(4, usage(4, 1e12))).toBeCloseTo(base * (1 - MAX_MILEAGE_PENALTY), 12);
    });

    it('gives low mileage no bonus', () => {
      expect(strategy.valueAt(4, usage(4, 0))).toBe(strategy.valueAt(4, usage(4, 1)));
    });
  });

  it('loses least over 5 years for trucks among cars, most for luxury and ev', () => {
    const loss = (type: VehicleType) =>
      1 - STRATEGIES[type].valueAt(5, usage(5, 5 * RATES[type].milesPerYear));
    const cars: VehicleType[] = ['sedan', 'economy', 'suv', 'truck', 'luxury', 'sports', 'ev'];
    for (const car of cars) if (car !== 'truck') expect(loss('truck')).toBeLessThan(loss(car));
    for (const car of cars) {
      if (car === 'luxury' || car === 'ev') continue;
      expect(loss('luxury')).toBeGreaterThan(loss(car));
      expect(loss('ev')).toBeGreaterThan(loss(car));
    }
  });

  it('composes: the mileage adjustment wraps any age curve', () => {
    const curve = new DecliningBalanceStrategy({ firstYear: 0.5, laterYears: 0, floor: 0 });
    const adjusted = new MileageAdjustedStrategy(curve, 1_000);
    expect(adjusted.valueAt(1, usage(1, 2_000))).toBeCloseTo(0.5 * 0.96, 12);
  });
});
