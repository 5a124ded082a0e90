import { BadRequestException } from '@nestjs/common';
import { errorBodyOf } from '../testing/error-body-of';
import { SettableClock } from '../testing/settable-clock';
import { DepreciationService } from './depreciation.service';
import { README_EXAMPLE_ANSWER, README_EXAMPLE_REQUEST } from '../testing/readme-example';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';

const serviceAt = (iso: string) => new DepreciationService(new SettableClock(iso));

describe('DepreciationService', () => {
  const service = serviceAt('2026-11-21T09:30:00.123Z');
  const sedan: DepreciationInput = README_EXAMPLE_REQUEST;

  it('answers the whole body of docs/contract.md, in cents, following docs/model.md', () => {
    expect(service.calculate(sedan)).toEqual(README_EXAMPLE_ANSWER);
  });

  it('lowers the value for miles above the expected 13,500 a year', () => {
    const { data } = service.calculate({ ...sedan, currentMileage: 162_000 }); // 27,000 a year
    // At age 6, six years' worth of excess: 24 % off the age curve's 10,514.63.
    expect(data.currentValue).toBe(7991.12);
    expect(data.yearlyBreakdown[1]).toEqual({
      year: 2021,
      age: 1,
      value: 19680,
      depreciation: 5320,
      depreciationPercent: 21.28,
    });
  });

  it('treats an omitted mileage as 0', () => {
    const { currentMileage: _omitted, ...withoutMileage } = sedan;
    expect(service.calculate(withoutMileage)).toEqual(
      service.calculate({ ...sedan, currentMileage: 0 }),
    );
  });

  it('answers age 0 in the purchase year: one entry, nothing lost, monthly 0', () => {
    const result = service.calculate({ ...sedan, purchaseYear: 2026, currentMileage: 90_000 });
    expect(result.data).toEqual({
      currentValue: 25000,
      totalDepreciation: 0,
      totalDepreciationPercent: 0,
      monthlyDepreciation: 0,
      yearlyBreakdown: [
        { year: 2026, age: 0, value: 25000, depreciation: 0, depreciationPercent: 0 },
      ],
    });
    expect(result.meta.vehicleAge).toBe(0);
  });

  it('refuses a purchase year after the current UTC year, answered as invalid input', () => {
    expect(errorBodyOf(() => service.calculate({ ...sedan, purchaseYear: 2027 }))).toEqual({
      thrown: BadRequestException.name,
      statusCode: 400,
      message: 'Invalid input parameters',
      expected: true,
    });
  });

  it('takes the current year in UTC, at the very edges of the year', () => {
    const input = { ...sedan, purchaseYear: 2027 };
    expect(() => serviceAt('2026-12-31T23:59:59.999Z').calculate(input)).toThrow(
      BadRequestException,
    );
    expect(serviceAt('2027-01-01T00:00:00.000Z').calculate(input).meta.vehicleAge).toBe(0);
  });

  it('answers 127 entries for a 1900 vehicle, frozen at its age-25 value', () => {
    const { data } = service.calculate({ ...sedan, purchaseYear: 1900, purchasePrice: 10_000_000 });
    expect(data.yearlyBreakdown).toHaveLength(127);
    expect(data.yearlyBreakdown[126].year).toBe(2026);
    expect(data.currentValue).toBe(1_000_000); // the sedan floor: 10 % of the price
    expect(data.yearlyBreakdown[26].depreciation).toBe(0);
  });

  it('takes the price to the cent, half away from zero', () => {
    const { data } = service.calculate({ ...sedan, purchaseYear: 2026, purchasePrice: 1.005 });
    expect(data.yearlyBreakdown[0].value).toBe(1.01);
  });
});
