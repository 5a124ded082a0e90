import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { breakingChanges, type Document } from '../src/testing/breaking-changes';

const read = (file: string) =>
  JSON.parse(readFileSync(join(__dirname, '..', file), 'utf8')) as Document;
const BASELINE = read('openapi.v1.json');
/** The parts of a document the seeded changes touch. */
interface Field {
  type?: string;
  minimum?: number;
  maximum?: number;
}
interface Shape {
  required: string[];
  enum: string[];
  properties: Record<string, Field>;
}
interface Post {
  description?: string;
  responses: Record<string, unknown>;
}
/** A copy of the baseline changed by `change`. */
const changed = (change: (document: Document) => void): Document => {
  const document = structuredClone(BASELINE);
  change(document);
  return document;
};
const schemas = (document: Document) =>
  document.components?.schemas as unknown as Record<string, Shape>;
const post = (document: Document) => document.paths['/api/depreciate'].post as unknown as Post;

/**
 * No silent breaking change (docs/contract.md, "Versioning"): the committed document (openapi.json,
 * itself held to what the server serves) against the frozen v1 baseline (openapi.v1.json), and the
 * checker shown to catch each kind of breaking change, by direction, and to pass what is not one.
 */
describe('the contract against its v1 baseline', () => {
  it('has no breaking change in the committed openapi.json', () => {
    expect(breakingChanges(BASELINE, read('openapi.json'))).toEqual([]);
  });

  it.each<[string, (document: Document) => void, string]>([
    [
      'a request field newly required',
      (d) => schemas(d).DepreciationRequest.required.push('currentMileage'),
      'POST /api/depreciate request.currentMileage: newly required',
    ],
    [
      'a request range narrowed',
      (d) => (schemas(d).DepreciationRequest.properties.purchaseYear.minimum = 1950),
      'POST /api/depreciate request.purchaseYear: range narrowed',
    ],
    [
      'a request type changed',
      (d) => (schemas(d).DepreciationRequest.properties.purchasePrice.type = 'integer'),
      'POST /api/depreciate request.purchasePrice: type number became integer',
    ],
    [
      'an enum narrowed in a request',
      (d) => schemas(d).VehicleType.enum.pop(),
      'POST /api/depreciate request.vehicleType: enum no longer takes rv',
    ],
    [
      'an operation removed',
      (d) => delete d.paths['/api/depreciate'].post,
      'POST /api/depreciate: removed',
    ],
    [
      'an answer field removed',
      (d) => delete schemas(d).DepreciationData.properties.monthlyDepreciation,
      'POST /api/depreciate 200.data.monthlyDepreciation: removed',
    ],
    [
      'an answer field made optional',
      (d) => schemas(d).DepreciationMeta.required.pop(),
      'POST /api/depreciate 200.meta.calculatedAt: made optional',
    ],
    [
      'an answer type widened',
      (d) => (schemas(d).YearlyEntry.properties.value.type = 'string'),
      'POST /api/depreciate 200.data.yearlyBreakdown[].value: type number became string',
    ],
    [
      'a documented status removed',
      (d) => delete post(d).responses['415'],
      'POST /api/depreciate 415: no longer documented',
    ],
  ])('catches %s', (_name, change, expected) => {
    expect(breakingChanges(BASELINE, changed(change))).toContain(expected);
  });

  it('catches a new enum value in an answer (a new vehicle type is new in the answer too)', () => {
    const next = changed((d) => schemas(d).VehicleType.enum.push('tractor'));
    expect(breakingChanges(BASELINE, next)).toEqual([
      'POST /api/depreciate 200.meta.vehicleType: enum may now answer tractor',
    ]);
  });

  it('passes a new optional answer field: a client that never asks for it never reads it', () => {
    const next = changed((d) => {
      schemas(d).DepreciationData.properties.projection = { type: 'array' };
    });
    expect(breakingChanges(BASELINE, next)).toEqual([]);
  });

  it('catches a new request field that is wrongly required', () => {
    const next = changed((d) => {
      schemas(d).DepreciationRequest.properties.projectionYears = { type: 'integer' };
      schemas(d).DepreciationRequest.required.push('projectionYears');
    });
    expect(breakingChanges(BASELINE, next)).toEqual([
      'POST /api/depreciate request.projectionYears: newly required',
    ]);
  });

  it('passes what no client can tell: a new optional field, a new status, a new path, prose', () => {
    const next = changed((d) => {
      schemas(d).DepreciationRequest.properties.currency = { type: 'string' };
      post(d).responses['503'] = post(d).responses['500'];
      d.paths['/api/fleet'] = {};
      post(d).description = 'Reworded.';
      schemas(d).DepreciationRequest.properties.purchasePrice.maximum = 20_000_000;
    });
    expect(breakingChanges(BASELINE, next)).toEqual([]);
  });
});
