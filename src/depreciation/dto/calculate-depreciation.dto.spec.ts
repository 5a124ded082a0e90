import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import fc from 'fast-check';
import { VEHICLE_TYPES } from '../strategies/rates';
import { CalculateDepreciationDto, isValidDepreciationBody } from './calculate-depreciation.dto';

/** What the global ValidationPipe decides, through class-validator. */
const classValidatorAccepts = (body: object) =>
  validateSync(plainToInstance(CalculateDepreciationDto, body), {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  }).length === 0;

const nearValue = fc.oneof(
  fc.integer({ min: 1850, max: 2100 }),
  fc.integer({ min: -2, max: 12 }),
  fc.double({ noNaN: false }),
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    3.5,
    10,
    11,
    0.01,
    0.009,
    1899,
    1900,
    10_000_000,
    10_000_000.01,
    5e-324,
    Infinity,
    NaN,
  ),
  fc.constantFrom(...VEHICLE_TYPES, 'Sedan', 'boat', '', ' suv'),
  fc.constantFrom(null, true, false, '2020', '25000', '3', [], {}, [2020]),
);

const nearBody = fc.record(
  {
    purchaseYear: nearValue,
    purchasePrice: nearValue,
    vehicleType: nearValue,
    currentMileage: nearValue,
    currentMilage: nearValue,
    projectionYears: nearValue,
  },
  { requiredKeys: [] },
);

const validBody = fc.record(
  {
    purchaseYear: fc.integer({ min: 1900, max: 3000 }),
    purchasePrice: fc.double({ min: 0.01, max: 10_000_000, noNaN: true }),
    vehicleType: fc.constantFrom(...VEHICLE_TYPES),
    currentMileage: fc.double({ min: 0, max: 1e300, noNaN: true }),
    projectionYears: fc.integer({ min: 0, max: 10 }),
  },
  { requiredKeys: ['purchaseYear', 'purchasePrice', 'vehicleType'] },
);

describe('isValidDepreciationBody (the precheck)', () => {
  it('never accepts a body the class-validator rules refuse', () => {
    fc.assert(
      fc.property(fc.oneof(nearBody, fc.object()), (body) => {
        if (isValidDepreciationBody(body)) expect(classValidatorAccepts(body)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with class-validator on every body, valid or not', () => {
    fc.assert(
      fc.property(fc.oneof(validBody, nearBody), (body) => {
        expect(isValidDepreciationBody(body)).toBe(classValidatorAccepts(body));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev' }, true],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', currentMileage: 0 }, true],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', currentMileage: null }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', extra: 1 }, false],
    [{ purchaseYear: 2020.5, purchasePrice: 1, vehicleType: 'ev' }, false],
    [{ purchaseYear: 2020, purchasePrice: Infinity, vehicleType: 'ev' }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'toString' }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: 0 }, true],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: 10 }, true],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: 11 }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: -1 }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: 3.5 }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: '3' }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: null }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: true }, false],
    [{ purchaseYear: 2020, purchasePrice: 1, vehicleType: 'ev', projectionYears: [] }, false],
  ])('decides %p: %p', (body, expected) => {
    expect(isValidDepreciationBody(body)).toBe(expected);
    expect(classValidatorAccepts(body)).toBe(expected);
  });
});
