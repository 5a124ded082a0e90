import { INestApplication } from '@nestjs/common';
import {
  README_EXAMPLE_ANSWER,
  README_EXAMPLE_AT,
  README_EXAMPLE_REQUEST as EXAMPLE,
} from '../src/testing/readme-example';
import { SettableClock } from '../src/testing/settable-clock';
import { answerAt, INVALID } from '../src/testing/bodies';
import { nextClient } from '../src/testing/clients';
import { depreciate } from '../src/testing/http';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { createTestApp, depreciateIn } from '../src/testing/test-app';

/** The README's sedan three years on (docs/model.md, "Projection"): 12.5 % a year from 10,514.63. */
const THREE_YEARS = [
  { year: 2027, age: 7, value: 9200.3, depreciation: 1314.33, depreciationPercent: 12.5 },
  { year: 2028, age: 8, value: 8050.27, depreciation: 1150.03, depreciationPercent: 12.5 },
  { year: 2029, age: 9, value: 7043.98, depreciation: 1006.29, depreciationPercent: 12.5 },
];

describe('projectionYears (e2e, through AppModule)', () => {
  let app: INestApplication;

  beforeEach(async () => {
    app = await createTestApp({ clock: new SettableClock(README_EXAMPLE_AT) });
  });

  afterEach(() => app.close());

  it('answers the projection after the breakdown, and nothing else changes', async () => {
    const response = await depreciateIn(app, { ...EXAMPLE, projectionYears: 3 }).expect(200);
    const { success, data, meta } = README_EXAMPLE_ANSWER;
    expect(response.text).toBe(
      JSON.stringify({ success, data: { ...data, projection: THREE_YEARS }, meta }),
    );
  });

  it("answers today's answer byte for byte without the field and with 0", async () => {
    const omitted = await depreciateIn(app, EXAMPLE).expect(200);
    const zero = await depreciateIn(app, { ...EXAMPLE, projectionYears: 0 }).expect(200);
    expect(omitted.text).toBe(JSON.stringify(README_EXAMPLE_ANSWER));
    expect(zero.text).toBe(omitted.text);
  });

  it.each([
    ['"3"', '3'],
    ['3.5', 3.5],
    ['-1', -1],
    ['11', 11],
    ['null', null],
    ['true', true],
    ['[]', []],
  ])('answers 400 for projectionYears %s, and counts it', async (_case, projectionYears) => {
    const before = await depreciateIn(app).expect(200);
    const refused = await depreciateIn(app, { ...EXAMPLE, projectionYears }).expect(400, INVALID);
    const left = Number(before.headers['x-ratelimit-remaining']);
    expect(Number(refused.headers['x-ratelimit-remaining'])).toBe(left - 1);
  });

  it('counts a request with a projection once, like any other', async () => {
    const first = await depreciateIn(app, { ...EXAMPLE, projectionYears: 10 }).expect(200);
    const second = await depreciateIn(app, { ...EXAMPLE, projectionYears: 10 }).expect(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('99');
    expect(second.headers['x-ratelimit-remaining']).toBe('98');
  });
});

describe('projectionYears on the built server (node dist/main.js)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({});
  });

  afterAll(() => server.stop());

  it('answers ten frozen years for a vehicle past 25, from the year after the current one', async () => {
    const body = {
      purchaseYear: 1990,
      purchasePrice: 25000,
      vehicleType: 'sedan',
      projectionYears: 10,
    };
    const answer = await depreciate(server.port, { body });
    expect(answer.status).toBe(200);
    const { data, meta } = answer.json as {
      data: { currentValue: number; projection: unknown[] };
      meta: { vehicleAge: number; calculatedAt: string };
    };
    const year = Number(meta.calculatedAt.slice(0, 4));
    expect(data.currentValue).toBe(2500); // the sedan floor: 10 % of the price, since age 17
    expect(data.projection).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        year: year + i + 1,
        age: meta.vehicleAge + i + 1,
        value: 2500,
        depreciation: 0,
        depreciationPercent: 0,
      })),
    );
    expect(answer.headers['x-ratelimit-remaining']).toBe('99');
  });

  it("serves the model's projection unchanged (plumbing)", async () => {
    const body = { ...EXAMPLE, projectionYears: 10 };
    const answer = await depreciate(server.port, { body, from: nextClient() });
    const { calculatedAt } = (answer.json as { meta: { calculatedAt: string } }).meta;
    expect(answer.json).toEqual(answerAt(body, calculatedAt));
  });
});
