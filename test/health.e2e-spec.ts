import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp, depreciateIn, scrapeMetrics } from '../src/testing/test-app';

describe('GET /health (memory store)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(() => app.close());

  it('answers 200 with the state of the daily counters, uncounted and without rate-limit headers', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await request(app.getHttpServer())
        .get('/health')
        .expect(200, {
          status: 'ok',
          dailyLimit: { store: 'memory', counting: 'memory', shared: false },
        });
      expect(answer.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    const counted = await depreciateIn(app).expect(200);
    expect(counted.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('answers /health/live and /health/ready with 200 while the counters work, uncounted', async () => {
    const server = request(app.getHttpServer());
    const live = await server.get('/health/live').expect(200, {
      status: 'ok',
      info: {},
      error: {},
      details: {},
    });
    expect(live.headers['x-ratelimit-remaining']).toBeUndefined();
    const up = { status: 'up', store: 'memory', counting: 'memory', shared: false };
    const ready = await server.get('/health/ready').expect(200, {
      status: 'ok',
      info: { dailyLimit: up },
      error: {},
      details: { dailyLimit: up },
    });
    expect(ready.headers['x-ratelimit-remaining']).toBeUndefined();
  });

  it('exposes the store state as a metric', async () => {
    const text = await scrapeMetrics(app);
    expect(text).toContain('daily_limit_store_shared{store="memory"} 0');
  });
});
