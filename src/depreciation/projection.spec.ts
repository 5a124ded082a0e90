import { SettableClock } from '../testing/settable-clock';
import { README_EXAMPLE_ANSWER, README_EXAMPLE_REQUEST } from '../testing/readme-example';
import { DepreciationService } from './depreciation.service';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';

/**
 * The projection's arithmetic (docs/model.md, "Projection"), valued in 2026. The figures follow
 * from the rates table and the rounding rules alone; computed once in exact rational arithmetic:
 * - the README's sedan (6 years, 50,000 miles: 8,333.33 a year, under the expected 13,500) keeps
 *   losing 12.5 % a year: 25,000 × 0.82 × 0.875^6 = 9,200.30;
 * - a sedan bought this year with 20,000 miles keeps that pace: at age k it has 20,000 k miles,
 *   0.481 years' worth of excess a year, so 1.926 % × k off: 20,500 × (1 − 0.019259) = 20,105.19;
 * - a truck of 2 years with 60,000 miles (30,000 a year, 1.222 years' worth of excess a year);
 * - a sedan of 24 years driven 15,000 miles a year: on its 10 % floor, less 0.444 % per year of
 *   excess, 11.11 % at age 25, and nothing more after 25.
 */
const service = new DepreciationService(new SettableClock('2026-06-15T12:00:00.000Z'));
type Row = [age: number, value: number, depreciation: number, depreciationPercent: number];
const rows = (entries: Row[]) =>
  entries.map(([age, value, depreciation, depreciationPercent]) => ({
    year: 2026 + age - entries[0][0] + 1,
    age,
    value,
    depreciation,
    depreciationPercent,
  }));
const projected = (input: Partial<DepreciationInput>) =>
  service.calculate({ ...README_EXAMPLE_REQUEST, ...input }).data;

describe('the projection (projectionYears)', () => {
  it('continues the README example at 12.5 % a year, the first loss from currentValue', () => {
    const data = projected({ projectionYears: 3 });
    expect(data.currentValue).toBe(10514.63);
    expect(data.projection).toEqual(
      rows([
        [7, 9200.3, 1314.33, 12.5],
        [8, 8050.27, 1150.03, 12.5],
        [9, 7043.98, 1006.29, 12.5],
      ]),
    );
  });

  it('counts the miles of a vehicle bought this year as one year of its pace', () => {
    const data = projected({ purchaseYear: 2026, currentMileage: 20_000, projectionYears: 3 });
    expect(data.yearlyBreakdown).toHaveLength(1);
    expect(data.projection).toEqual(
      rows([
        [1, 20105.19, 4894.81, 19.58],
        [2, 17246.57, 2858.62, 14.22],
        [3, 14788.47, 2458.1, 14.25],
      ]),
    );
  });

  it('carries a high pace into a growing mileage penalty', () => {
    const data = projected({
      purchaseYear: 2024,
      purchasePrice: 30_000,
      vehicleType: 'truck',
      currentMileage: 60_000,
      projectionYears: 4,
    });
    expect(data.currentValue).toBe(21674.99);
    expect(data.projection).toEqual(
      rows([
        [3, 18655.44, 3019.55, 13.93],
        [4, 16003.84, 2651.6, 14.21],
        [5, 13678.42, 2325.42, 14.53],
        [6, 11641.94, 2036.48, 14.89],
      ]),
    );
  });

  it('stops falling at age 25, mileage penalty included', () => {
    const data = projected({ purchaseYear: 2002, currentMileage: 360_000, projectionYears: 3 });
    expect(data.currentValue).toBe(2233.33);
    expect(data.projection).toEqual(
      rows([
        [25, 2222.22, 11.11, 0.5],
        [26, 2222.22, 0, 0],
        [27, 2222.22, 0, 0],
      ]),
    );
  });

  it('answers N rows with no loss for a vehicle past 25', () => {
    const data = projected({ purchaseYear: 1996, currentMileage: 90_000, projectionYears: 2 });
    expect(data.projection).toEqual(
      rows([
        [31, 2500, 0, 0],
        [32, 2500, 0, 0],
      ]),
    );
  });

  it('gives 10 entries for 10 years, and adds nothing else to the answer', () => {
    const { projection, ...rest } = projected({ projectionYears: 10 });
    expect(projection?.map((entry) => entry.year)).toEqual([
      2027, 2028, 2029, 2030, 2031, 2032, 2033, 2034, 2035, 2036,
    ]);
    expect(rest).toEqual(README_EXAMPLE_ANSWER.data);
  });

  it('has no projection key when the field is absent or 0', () => {
    expect(Object.keys(projected({}))).not.toContain('projection');
    expect(Object.keys(projected({ projectionYears: 0 }))).not.toContain('projection');
  });
});
