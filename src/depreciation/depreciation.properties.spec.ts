import fc from 'fast-check';
import { PROPERTY_YEAR, propertyClock, validInputFields } from '../testing/valid-inputs';
import { DepreciationService } from './depreciation.service';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';
import { toCents } from './projection';
import { VEHICLE_TYPES } from './strategies/rates';

const CURRENT_YEAR = PROPERTY_YEAR;
const service = new DepreciationService(propertyClock());

const cents = (usd: number) => Math.round(usd * 100);
const hasAtMostTwoDecimals = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;

const input = fc.record(validInputFields(VEHICLE_TYPES), {
  requiredKeys: ['purchaseYear', 'purchasePrice', 'vehicleType'],
}) as fc.Arbitrary<DepreciationInput>;

describe('DepreciationService properties (the invariants of docs/contract.md and docs/model.md)', () => {
  it('has one entry per year from the purchase year to now, the first being the purchase', () => {
    fc.assert(
      fc.property(input, (request) => {
        const { data, meta } = service.calculate(request);
        const age = CURRENT_YEAR - request.purchaseYear;
        expect(meta).toMatchObject({ vehicleType: request.vehicleType, vehicleAge: age });
        expect(data.yearlyBreakdown).toHaveLength(age + 1);
        data.yearlyBreakdown.forEach((entry, i) => {
          expect(entry.year).toBe(request.purchaseYear + i);
          expect(entry.age).toBe(i);
        });
        expect(data.yearlyBreakdown[0]).toEqual({
          year: request.purchaseYear,
          age: 0,
          value: toCents(request.purchasePrice) / 100,
          depreciation: 0,
          depreciationPercent: 0,
        });
      }),
    );
  });

  it('never raises a value, never goes below 0 or above the price, in whole cents', () => {
    fc.assert(
      fc.property(input, (request) => {
        const entries = service.calculate(request).data.yearlyBreakdown;
        const price = entries[0].value;
        entries.forEach((entry, i) => {
          expect(hasAtMostTwoDecimals(entry.value)).toBe(true);
          expect(hasAtMostTwoDecimals(entry.depreciation)).toBe(true);
          expect(hasAtMostTwoDecimals(entry.depreciationPercent)).toBe(true);
          expect(entry.value).toBeGreaterThanOrEqual(0);
          expect(entry.value).toBeLessThanOrEqual(price);
          if (i > 0) expect(entry.value).toBeLessThanOrEqual(entries[i - 1].value);
        });
      }),
    );
  });

  it('adds up exactly: entries to the total, percentages and monthly from the rounded cents', () => {
    fc.assert(
      fc.property(input, (request) => {
        const { data, meta } = service.calculate(request);
        const entries = data.yearlyBreakdown;
        const price = cents(entries[0].value);
        const lost = entries.reduce((sum, entry) => sum + cents(entry.depreciation), 0);
        expect(cents(data.currentValue)).toBe(cents(entries[entries.length - 1].value));
        expect(cents(data.totalDepreciation)).toBe(price - cents(data.currentValue));
        expect(lost).toBe(cents(data.totalDepreciation));
        const percent = price === 0 ? 0 : (cents(data.totalDepreciation) / price) * 100;
        expect(Math.abs(data.totalDepreciationPercent - percent)).toBeLessThanOrEqual(0.005 + 1e-9);
        const monthly = meta.vehicleAge === 0 ? 0 : data.totalDepreciation / (meta.vehicleAge * 12);
        expect(Math.abs(data.monthlyDepreciation - monthly)).toBeLessThanOrEqual(0.005 + 1e-9);
        for (let i = 1; i < entries.length; i++) {
          const previous = cents(entries[i - 1].value);
          expect(cents(entries[i].depreciation)).toBe(previous - cents(entries[i].value));
          const rate = previous === 0 ? 0 : (cents(entries[i].depreciation) / previous) * 100;
          expect(Math.abs(entries[i].depreciationPercent - rate)).toBeLessThanOrEqual(0.005 + 1e-9);
        }
      }),
    );
  });

  it('never lets more miles raise a value', () => {
    fc.assert(
      fc.property(input, fc.double({ min: 0, max: 1e6, noNaN: true }), (request, extra) => {
        const fewer = service.calculate(request).data.yearlyBreakdown;
        const more = service.calculate({
          ...request,
          currentMileage: (request.currentMileage ?? 0) + extra,
        }).data.yearlyBreakdown;
        more.forEach((entry, i) => expect(entry.value).toBeLessThanOrEqual(fewer[i].value));
      }),
    );
  });

  it('never lets more years raise the current value', () => {
    fc.assert(
      fc.property(input, (request) => {
        fc.pre(request.purchaseYear > 1900);
        const newer = service.calculate(request).data.currentValue;
        const older = service.calculate({ ...request, purchaseYear: request.purchaseYear - 1 });
        expect(older.data.currentValue).toBeLessThanOrEqual(newer);
      }),
    );
  });

  it('answers the same for an omitted mileage as for 0', () => {
    fc.assert(
      fc.property(input, (request) => {
        const { currentMileage: _dropped, ...omitted } = request;
        expect(service.calculate(omitted)).toEqual(
          service.calculate({ ...omitted, currentMileage: 0 }),
        );
      }),
    );
  });
});
