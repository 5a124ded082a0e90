import { Controller, Get, INestApplication, Logger } from '@nestjs/common';
import request from 'supertest';
import {
  README_EXAMPLE_ANSWER,
  README_EXAMPLE_AT,
  README_EXAMPLE_REQUEST as EXAMPLE,
} from '../src/testing/readme-example';
import {
  answerAt,
  INTERNAL_ERROR,
  INVALID,
  TOO_LARGE,
  UNSUPPORTED_TYPE,
} from '../src/testing/bodies';
import { SettableClock } from '../src/testing/settable-clock';
import { MODEL_ANSWERS } from '../src/testing/depreciation-figures';
import { createTestApp, depreciateIn } from '../src/testing/test-app';

@Controller('boom')
class BoomController {
  @Get()
  explode(): never {
    throw new Error('secret: db password hunter2');
  }
}

describe('POST /api/depreciate (e2e, through AppModule)', () => {
  let app: INestApplication;

  beforeEach(async () => {
    app = await createTestApp({
      extra: { controllers: [BoomController] },
      clock: new SettableClock(README_EXAMPLE_AT),
    });
  });

  afterEach(() => app.close());

  it('answers 200 with the whole success body of docs/contract.md', async () => {
    const response = await depreciateIn(app, EXAMPLE)
      .expect(200)
      .expect('Content-Type', /^application\/json/);
    expect(response.body).toEqual(README_EXAMPLE_ANSWER);
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('answers byte-identically for an omitted mileage and for 0', async () => {
    const { currentMileage: _omitted, ...withoutMileage } = EXAMPLE;
    const omitted = await depreciateIn(app, withoutMileage).expect(200);
    const zero = await depreciateIn(app, { ...EXAMPLE, currentMileage: 0 }).expect(200);
    expect(omitted.text).toBe(zero.text);
  });

  it.each([
    ['purchaseYear 1900', { purchaseYear: 1900 }, MODEL_ANSWERS.purchaseYear1900],
    ['purchaseYear = the current year', { purchaseYear: 2026 }, MODEL_ANSWERS.currentYear],
    ['purchasePrice 0.01', { purchasePrice: 0.01 }, MODEL_ANSWERS.oneCent],
    ['currentMileage 0', { currentMileage: 0 }, README_EXAMPLE_ANSWER],
    ['a large mileage', { currentMileage: 9_999_999 }, MODEL_ANSWERS.largeMileage],
    ['vehicleType sedan', { vehicleType: 'sedan' }, README_EXAMPLE_ANSWER],
    ['vehicleType suv', { vehicleType: 'suv' }, MODEL_ANSWERS.suv],
    ['vehicleType truck', { vehicleType: 'truck' }, MODEL_ANSWERS.truck],
    ['vehicleType luxury', { vehicleType: 'luxury' }, MODEL_ANSWERS.luxury],
    ['vehicleType economy', { vehicleType: 'economy' }, MODEL_ANSWERS.economy],
    ['vehicleType sports', { vehicleType: 'sports' }, MODEL_ANSWERS.sports],
    ['vehicleType ev', { vehicleType: 'ev' }, MODEL_ANSWERS.ev],
    ['vehicleType motorcycle', { vehicleType: 'motorcycle' }, MODEL_ANSWERS.motorcycle],
    ['vehicleType rv', { vehicleType: 'rv' }, MODEL_ANSWERS.rv],
  ])('accepts %s, with the whole answer written down', async (_case, change, answer) => {
    const response = await depreciateIn(app, { ...EXAMPLE, ...change }).expect(200);
    expect(response.body).toEqual(answer);
  });

  it('accepts purchasePrice 10,000,000, answering what DepreciationService computes (plumbing)', async () => {
    // The one answer here taken from the service itself: it proves the request reaches the model
    // and its result is served unchanged. The figures above are pinned, so they catch the model.
    const body = { ...EXAMPLE, purchasePrice: 10_000_000 };
    const response = await depreciateIn(app, body).expect(200);
    expect(response.body).toEqual(answerAt(body, README_EXAMPLE_AT));
  });

  it.each([
    ['purchaseYear missing', { purchaseYear: undefined }],
    ['purchasePrice missing', { purchasePrice: undefined }],
    ['vehicleType missing', { vehicleType: undefined }],
    ['purchaseYear 1899', { purchaseYear: 1899 }],
    ['purchaseYear after the current year', { purchaseYear: 2027 }],
    ['purchaseYear not an integer', { purchaseYear: 2020.5 }],
    ['purchaseYear as a string', { purchaseYear: '2020' }],
    ['purchaseYear null', { purchaseYear: null }],
    ['purchasePrice 0', { purchasePrice: 0 }],
    ['purchasePrice negative', { purchasePrice: -1 }],
    ['purchasePrice under one cent', { purchasePrice: 0.009 }],
    ['purchasePrice 5e-324', { purchasePrice: 5e-324 }],
    ['purchasePrice above 10,000,000', { purchasePrice: 10_000_000.01 }],
    ['purchasePrice as a string', { purchasePrice: '25000' }],
    ['purchasePrice a boolean', { purchasePrice: true }],
    ['vehicleType unknown', { vehicleType: 'boat' }],
    ['vehicleType in capitals', { vehicleType: 'Sedan' }],
    ['vehicleType with spaces', { vehicleType: ' sedan' }],
    ['vehicleType a number', { vehicleType: 1 }],
    ['vehicleType an array', { vehicleType: ['sedan'] }],
    ['currentMileage negative', { currentMileage: -1 }],
    ['currentMileage as a string', { currentMileage: '50000' }],
    ['currentMileage null', { currentMileage: null }],
    ['currentMileage an object', { currentMileage: { miles: 1 } }],
    ['an unknown field (a typo)', { currentMilage: 50000 }],
    ['an extra field', { color: 'red' }],
  ])('answers 400 for %s', async (_case, change) => {
    await depreciateIn(app, { ...EXAMPLE, ...change }).expect(400, INVALID);
  });

  it.each([
    ['malformed JSON', '{"purchaseYear": 2020,'],
    [
      'an infinite number (1e400)',
      '{"purchaseYear":2020,"purchasePrice":1e400,"vehicleType":"sedan"}',
    ],
    ['an array of a valid body', JSON.stringify([EXAMPLE])],
    ['a JSON string', '"sedan"'],
    ['a JSON number', '2020'],
    ['JSON null', 'null'],
    ['JSON true', 'true'],
    ['an empty object', '{}'],
    ['an empty body', ''],
    ['a __proto__ key', JSON.stringify(EXAMPLE).replace('{', '{"__proto__":{"x":1},')],
    ['a prototype key', JSON.stringify(EXAMPLE).replace('{', '{"prototype":1,')],
    ['a constructor key', JSON.stringify(EXAMPLE).replace('{', '{"constructor":{"x":1},')],
  ])('answers 400 for %s', async (_case, body) => {
    await depreciateIn(app, body).expect(400, INVALID);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['JSON:API', 'application/vnd.api+json'],
  ])('answers 415 for a body sent as %s', async (_case, type) => {
    await depreciateIn(app, EXAMPLE, type).expect(415, UNSUPPORTED_TYPE);
  });

  it('answers 415 when Content-Type is missing', async () => {
    await request(app.getHttpServer()).post('/api/depreciate').expect(415, UNSUPPORTED_TYPE);
  });

  it('answers 415 for a JSON type in a charset JSON cannot be', async () => {
    await depreciateIn(app, EXAMPLE, 'application/json; charset=latin1').expect(
      415,
      UNSUPPORTED_TYPE,
    );
  });

  it('answers 413 for a body over the limit', async () => {
    await depreciateIn(app, { ...EXAMPLE, padding: 'x'.repeat(9000) }).expect(413, TOO_LARGE);
  });

  it.each([
    ['GET', '/x', 'Cannot GET /x'],
    ['POST', '/api/depreciation', 'Cannot POST /api/depreciation'],
    ['GET', '/api/depreciate', 'Cannot GET /api/depreciate'],
    ['PUT', '/api/depreciate', 'Cannot PUT /api/depreciate'],
    ['DELETE', '/api/depreciate', 'Cannot DELETE /api/depreciate'],
  ])('answers 404 for %s %s', async (method, path, message) => {
    const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    const call = request(app.getHttpServer())[verb](path);
    const response = await call.expect(404, { statusCode: 404, message });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers 500 with the generic message, and logs the detail with its stack once', async () => {
    const logError = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const response = await request(app.getHttpServer()).get('/boom').expect(500, INTERNAL_ERROR);
      expect(response.text).not.toContain('hunter2');
      expect(logError).toHaveBeenCalledTimes(1);
      expect(logError).toHaveBeenCalledWith({
        reqId: response.headers['x-request-id'],
        msg: 'secret: db password hunter2',
        err: expect.objectContaining({
          stack: expect.stringContaining('at BoomController.explode'),
        }) as Error,
      });
    } finally {
      logError.mockRestore();
    }
  });
});
