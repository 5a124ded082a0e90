import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { MetricsServer } from '../src/metrics/metrics.server';
import { MetricsService } from '../src/metrics/metrics.service';
import { DailyLimitStorage } from '../src/rate-limit/daily-limit.storage';
import { OverLimitStorage } from '../src/testing/daily-limit';
import { VALID } from '../src/testing/bodies';
import { send } from '../src/testing/http';
import { createTestApp, depreciateIn, scrapeMetrics } from '../src/testing/test-app';

/** The sample lines of one metric family, e.g. `http_requests_total{...} 1`. */
const samples = (text: string, name: string): string[] =>
  text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

describe('GET /metrics', () => {
  let app: NestExpressApplication;

  beforeEach(async () => {
    app = await createTestApp();
  });
  afterEach(() => app.close());

  const scrape = () => scrapeMetrics(app);

  it("serves Node's default process metrics and the HTTP metrics", async () => {
    const text = await scrape();
    for (const name of [
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'http_requests_total',
      'http_request_duration_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts requests by route pattern, method and status, and times them', async () => {
    await depreciateIn(app).expect(200);
    await depreciateIn(app).expect(200);
    await depreciateIn(app, { ...VALID, purchaseYear: 1800 }).expect(400);
    await depreciateIn(app, '{"broken').expect(400);

    const text = await scrape();
    expect(samples(text, 'http_requests_total')).toEqual([
      'http_requests_total{method="POST",route="/api/depreciate",status="200"} 2',
      'http_requests_total{method="POST",route="/api/depreciate",status="400"} 1',
      // Malformed JSON is refused by the body parser, before any route.
      'http_requests_total{method="POST",route="unmatched",status="400"} 1',
    ]);
    expect(samples(text, 'http_request_duration_seconds_count')).toEqual([
      'http_request_duration_seconds_count{method="POST",route="/api/depreciate"} 3',
      'http_request_duration_seconds_count{method="POST",route="unmatched"} 1',
    ]);
  });

  it('labels every unknown path `unmatched`, never with the raw URL', async () => {
    const server = app.getHttpServer();
    for (const path of ['/a1', '/a2/b', '/api/depreciate/x', '/api/depreciate?id=42']) {
      await request(server).get(path).expect(404);
    }
    await request(server).head('/api/depreciate').expect(404);

    const text = await scrape();
    expect(samples(text, 'http_requests_total')).toEqual([
      'http_requests_total{method="GET",route="unmatched",status="404"} 4',
      'http_requests_total{method="HEAD",route="unmatched",status="404"} 1',
    ]);
    expect(text).not.toMatch(/a1|a2|id=42/);
  });

  it('registers gauges for other modules, read when scraped', async () => {
    let state = 1;
    app.get(MetricsService).createGauge({
      name: 'rate_limit_store_shared',
      help: 'Whether the counters are shared (1) or local to this instance (0).',
      collect() {
        this.set(state);
      },
    });
    expect(samples(await scrape(), 'rate_limit_store_shared')).toEqual([
      'rate_limit_store_shared 1',
    ]);
    state = 0;
    expect(samples(await scrape(), 'rate_limit_store_shared')).toEqual([
      'rate_limit_store_shared 0',
    ]);
  });

  it('is served on the management port only, in the exposition format, never counted', async () => {
    const port = app.get(MetricsServer).port;
    const scraped = await send({ port, path: '/metrics' });
    expect(scraped.status).toBe(200);
    expect(scraped.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(scraped.headers['x-ratelimit-limit']).toBeUndefined();
    expect(await send({ port, path: '/docs' })).toMatchObject({
      status: 404,
      json: { statusCode: 404, message: 'Not Found' },
    });
    // The public port does not serve it: a client can neither read it nor flood it.
    await request(app.getHttpServer())
      .get('/metrics')
      .expect(404, { statusCode: 404, message: 'Cannot GET /metrics' });
    const counted = await depreciateIn(app).expect(200);
    expect(counted.headers['x-ratelimit-remaining']).toBe('99');
  });
});

describe('GET /metrics past the daily limit', () => {
  let app: NestExpressApplication;

  beforeEach(async () => {
    // A storage that says every client is over its limit.
    const overLimit = new OverLimitStorage(3600);
    app = await createTestApp({
      override: (builder) => builder.overrideProvider(DailyLimitStorage).useValue(overLimit),
    });
  });
  afterEach(() => app.close());

  it('still answers, and counts the 429s', async () => {
    await depreciateIn(app).expect(429);
    await depreciateIn(app).expect(429);

    const text = await scrapeMetrics(app);
    expect(samples(text, 'http_requests_total')).toEqual([
      'http_requests_total{method="POST",route="/api/depreciate",status="429"} 2',
    ]);
  });
});
