import fc from 'fast-check';
import { PROPERTY_YEAR, propertyClock, validInputFields } from '../testing/valid-inputs';
import { DepreciationService } from './depreciation.service';
import type { CalculateDepreciationDto as DepreciationInput } from './dto/calculate-depreciation.dto';
import { VEHICLE_TYPES } from './strategies/rates';

const CURRENT_YEAR = PROPERTY_YEAR;
const service = new DepreciationService(propertyClock());

const input = fc.record(
  { ...validInputFields(VEHICLE_TYPES), projectionYears: fc.integer({ min: 1, max: 10 }) },
  { requiredKeys: ['purchaseYear', 'purchasePrice', 'vehicleType', 'projectionYears'] },
) as fc.Arbitrary<DepreciationInput & { projectionYears: number }>;

describe('the projection, for every type, purchase year, mileage and N (docs/contract.md)', () => {
  it('values k years ahead as the same vehicle bought k years earlier at the same pace', () => {
    fc.assert(
      fc.property(input, (request) => {
        const { data, meta } = service.calculate(request);
        const age = meta.vehicleAge;
        const pace = (request.currentMileage ?? 0) / Math.max(age, 1);
        expect(data.projection).toHaveLength(request.projectionYears);
        data.projection?.forEach((entry, i) => {
          const ahead = i + 1;
          // Called directly: the older purchase may fall before 1900, which HTTP refuses.
          const older = service.calculate({
            purchaseYear: request.purchaseYear - ahead,
            purchasePrice: request.purchasePrice,
            vehicleType: request.vehicleType,
            currentMileage: pace * (age + ahead),
          });
          expect(entry.value).toBe(older.data.currentValue);
          expect(entry).toMatchObject({ year: CURRENT_YEAR + ahead, age: age + ahead });
        });
      }),
    );
  });

  it('never rises, never falls below 0, loses from the entry before, and stops after 25', () => {
    const cents = (usd: number) => Math.round(usd * 100);
    fc.assert(
      fc.property(input, (request) => {
        const { data } = service.calculate(request);
        let previous = cents(data.currentValue);
        for (const entry of data.projection ?? []) {
          const value = cents(entry.value);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(previous);
          expect(cents(entry.depreciation)).toBe(previous - value);
          const rate = previous === 0 ? 0 : ((previous - value) / previous) * 100;
          expect(Math.abs(entry.depreciationPercent - rate)).toBeLessThanOrEqual(0.005 + 1e-9);
          if (entry.age > 25) expect(entry.depreciation).toBe(0);
          previous = value;
        }
      }),
    );
  });

  it('changes nothing else in the answer', () => {
    fc.assert(
      fc.property(input, (request) => {
        const { projectionYears: _asked, ...without } = request;
        const { projection: _projection, ...data } = service.calculate(request).data;
        expect(data).toEqual(service.calculate(without).data);
      }),
    );
  });
});
