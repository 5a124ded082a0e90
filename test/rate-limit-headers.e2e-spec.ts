import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { Clock } from '../src/common/clock';
import { FixedClock, createTestApp } from './helpers/test-app';

/** 09:30 UTC: 52,200 seconds to the reset. */
const NOW = '2026-11-21T09:30:00.000Z';
const RESET = 52_200;
const LIMIT = 100;
const valid = { purchaseYear: 2020, purchasePrice: 25_000, vehicleType: 'sedan' };

const counted = (remaining: number) => ({
  'x-ratelimit-limit': String(LIMIT),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(RESET),
  'ratelimit-policy': `"daily";q=${LIMIT};w=86400`,
  ratelimit: `"daily";r=${remaining};t=${RESET}`,
});

describe('Rate-limit headers on every counted answer', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({
      override: (builder) =>
        builder.overrideProvider(Clock).useValue(new FixedClock(new Date(NOW))),
    });
  });

  afterAll(() => app.close());

  const post = (body: string | object, contentType = 'application/json') =>
    request(app.getHttpServer())
      .post('/api/depreciate')
      .set('Content-Type', contentType)
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  it('sets them on a 200, a counted 400 and a 415, and not on an unparsable body', async () => {
    expect((await post(valid).expect(200)).headers).toMatchObject(counted(99));
    expect((await post({ ...valid, purchaseYear: '2020' }).expect(400)).headers).toMatchObject(
      counted(98),
    );
    expect((await post(valid, 'text/plain').expect(415)).headers).toMatchObject(counted(97));
    const unparsable = await post('{"purchaseYear":').expect(400);
    expect(unparsable.headers['x-ratelimit-remaining']).toBeUndefined();
    expect((await post(valid).expect(200)).headers).toMatchObject(counted(96));
  });

  it('adds Retry-After to the 429 and keeps the error body', async () => {
    for (let i = 0; i < 96; i++) await post(valid);
    const refused = await post(valid).expect(429, {
      statusCode: 429,
      message: `Rate limit exceeded. Maximum ${LIMIT} requests per 24 hours.`,
    });
    expect(refused.headers).toMatchObject({ ...counted(0), 'retry-after': String(RESET) });
  });

  it('does not count GET /health, which reports the memory store', async () => {
    const health = await request(app.getHttpServer())
      .get('/health')
      .expect(200, {
        status: 'ok',
        dailyLimit: { store: 'memory', counting: 'memory', shared: false },
      });
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('documents them on the operation in the OpenAPI document', async () => {
    const { body } = await request(app.getHttpServer()).get('/docs-json').expect(200);
    const responses = body.paths['/api/depreciate'].post.responses as Record<
      string,
      { headers?: Record<string, unknown> }
    >;
    const names = [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'RateLimit-Policy',
      'RateLimit',
    ];
    for (const status of ['200', '400', '415']) {
      expect(Object.keys(responses[status].headers ?? {})).toEqual(names);
    }
    expect(Object.keys(responses['429'].headers ?? {})).toEqual([...names, 'Retry-After']);
    expect(responses['413'].headers).toBeUndefined();
  });
});
