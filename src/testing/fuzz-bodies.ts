/** Generated request bodies for the fuzz test: JSON texts of every kind, and broken bytes. */
import fc from 'fast-check';
import { VEHICLE_TYPES } from '../depreciation/strategies/rates';

/** A header value or path piece: printable ASCII, sometimes any byte (CR, LF, NUL, 8-bit). */
export const text = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.string({ maxLength }), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength }), weight: 1 },
    {
      arbitrary: fc.uint8Array({ maxLength }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      weight: 1,
    },
  );

const numberText = fc.oneof(
  fc.integer({ min: 1880, max: 2040 }).map(String),
  fc.double({ noNaN: true }).map((value) => JSON.stringify(value)),
  fc.integer({ min: 1, max: 2000 }).map((zeros) => `1${'0'.repeat(zeros)}`),
  fc.constantFrom(
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '2.02e3',
    '2020.0',
    '9007199254740993',
    '0.1e1',
  ),
  fc.integer({ min: 1, max: 600 }).map((zeros) => `0.${'0'.repeat(zeros)}1`),
);

/** Anything JSON in a field: numbers of every shape, strings, the other JSON values. */
const fieldText = fc.oneof(
  { arbitrary: numberText, weight: 4 },
  { arbitrary: fc.constantFrom(...VEHICLE_TYPES).map((type) => JSON.stringify(type)), weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 12_000 }).map((n) => `"${'a'.repeat(n)}"`), weight: 1 },
);

/** Objects shaped like a request: the five fields (each maybe missing or odd), maybe extra keys. */
const requestLikeText = fc
  .record(
    {
      purchaseYear: fieldText,
      purchasePrice: fieldText,
      vehicleType: fieldText,
      currentMileage: fieldText,
      projectionYears: fc.oneof(fc.integer({ min: -2, max: 12 }).map(String), fieldText),
      extra: fc.array(
        fc.tuple(
          fc.oneof(
            fc.string({ maxLength: 10 }),
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'currentMilage'),
          ),
          fieldText,
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  )
  .map(({ extra = [], ...fields }) => {
    const entries = [...Object.entries(fields), ...extra].map(
      ([k, v]) => `${JSON.stringify(k)}:${v}`,
    );
    return `{${entries.join(',')}}`;
  });

/** A valid request, so a good share of the answers are 200s. */
const validText = fc
  .record({
    purchaseYear: fc.integer({ min: 1900, max: new Date().getUTCFullYear() }),
    purchasePrice: fc.double({ min: 0.01, max: 10_000_000, noNaN: true }),
    vehicleType: fc.constantFrom(...VEHICLE_TYPES),
    currentMileage: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
    projectionYears: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  })
  .map((body) => JSON.stringify(body));

const deepText = fc
  .tuple(fc.integer({ min: 20, max: 4000 }), fc.constantFrom('array', 'object', 'field'))
  .map(([depth, shape]) => {
    if (shape === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    if (shape === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    return `{"purchaseYear":${'['.repeat(depth)}${']'.repeat(depth)},"purchasePrice":1,"vehicleType":"ev"}`;
  });

const jsonText = fc.oneof(
  { arbitrary: validText, weight: 4 },
  { arbitrary: requestLikeText, weight: 6 },
  {
    arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? ''),
    weight: 2,
  },
  { arbitrary: deepText, weight: 1 },
);

/** Body bytes: JSON texts, mangled (truncated, invalid UTF-8 spliced in), or random. */
export const bodyBytes = fc.oneof(
  { arbitrary: jsonText.map((body) => Buffer.from(body)), weight: 8 },
  {
    arbitrary: fc
      .tuple(jsonText, fc.nat())
      .map(([body, cut]) => Buffer.from(body).subarray(0, cut % (body.length + 1))),
    weight: 2,
  },
  {
    arbitrary: fc
      .tuple(jsonText, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
      .map(([body, at, junk]) => {
        const bytes = Buffer.from(body);
        const cut = at % (bytes.length + 1);
        return Buffer.concat([
          bytes.subarray(0, cut),
          Buffer.from(junk.map((b) => b | 0x80)),
          bytes.subarray(cut),
        ]);
      }),
    weight: 2,
  },
  { arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
  { arbitrary: validText.map((body) => Buffer.from(`\ufeff${body}`, 'utf16le')), weight: 1 },
);
