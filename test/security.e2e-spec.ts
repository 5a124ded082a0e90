import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DailyLimitStorage } from '../src/rate-limit/daily-limit.storage';
import type { AddressInfo } from 'node:net';
import { limited } from '../src/testing/bodies';
import { OverLimitStorage } from '../src/testing/daily-limit';
import { exchange, parseResponses } from '../src/testing/raw-http';
import { createTestApp, depreciateIn } from '../src/testing/test-app';

const STRICT_CSP =
  "default-src 'self';base-uri 'self';font-src 'self';form-action 'self';frame-ancestors 'self';" +
  "img-src 'self';object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self';" +
  "connect-src 'self'";
const DOCS_CSP =
  "default-src 'self';base-uri 'self';font-src 'self';form-action 'self';frame-ancestors 'self';" +
  "img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
  "style-src 'self' 'unsafe-inline';connect-src 'self'";
/** What a preflight answers, whatever the path. */
const PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET,HEAD,POST',
  'access-control-allow-headers': 'Content-Type,X-Request-Id',
  'access-control-max-age': '86400',
};
const EXPOSED =
  'X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,RateLimit,RateLimit-Policy,' +
  'Retry-After,X-Request-Id';

describe('security headers', () => {
  let app: NestExpressApplication;

  beforeEach(async () => {
    app = await createTestApp();
  });
  afterEach(() => app.close());

  it('sends the page and the docs helmet’s headers with a same-origin, no-inline CSP', async () => {
    for (const path of ['/', '/assets/calculator.js']) {
      const { headers } = await request(app.getHttpServer()).get(path).expect(200);
      expect(headers['content-security-policy']).toBe(STRICT_CSP);
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(headers['referrer-policy']).toBe('no-referrer');
      expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(headers['x-powered-by']).toBeUndefined();
    }
  });

  it('sends JSON answers only the headers a JSON answer needs', async () => {
    for (const call of [
      depreciateIn(app).expect(200),
      request(app.getHttpServer()).get('/nowhere').expect(404),
      request(app.getHttpServer()).get('/docs-json').expect(200),
      request(app.getHttpServer()).get('/health').expect(200),
    ]) {
      const { headers } = await call;
      expect(headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      for (const name of [
        'x-frame-options',
        'referrer-policy',
        'cross-origin-opener-policy',
        'cross-origin-resource-policy',
        'origin-agent-cluster',
        'x-dns-prefetch-control',
        'x-download-options',
        'x-permitted-cross-domain-policies',
        'x-xss-protection',
        'x-powered-by',
      ]) {
        expect(headers[name]).toBeUndefined();
      }
    }
  });

  it('lets Swagger UI under /docs use its inline styles and data: images, scripts still same-origin', async () => {
    for (const path of ['/docs', '/docs/swagger-ui-init.js', '/docs/swagger-ui.css']) {
      const { headers } = await request(app.getHttpServer()).get(path).expect(200);
      expect(headers['content-security-policy']).toBe(DOCS_CSP);
    }
  });

  it('gives the docs their CSP for a target Express reads as /docs: absolute-form, with a fragment', async () => {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    for (const target of [`http://127.0.0.1:${port}/docs`, '/docs#top']) {
      const bytes = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
      const { received } = await exchange(Buffer.from(bytes), { port });
      const [answer] = parseResponses(received);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-security-policy']).toBe(DOCS_CSP);
    }
  });

  it('serves a Swagger UI page with no inline script', async () => {
    const { text } = await request(app.getHttpServer()).get('/docs').expect(200);
    const scripts = [...text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, content] of scripts) {
      expect(attributes).toMatch(/src="/);
      expect(content.trim()).toBe('');
    }
  });
});

describe('CORS', () => {
  let app: NestExpressApplication;

  beforeEach(async () => {
    app = await createTestApp();
  });
  afterEach(() => app.close());

  it('answers a preflight from any origin with 204, not counted against the daily limit', async () => {
    const preflight = await request(app.getHttpServer())
      .options('/api/depreciate')
      .set('Origin', 'https://calculator.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-request-id')
      .expect(204);

    expect(preflight.text).toBe('');
    expect(preflight.headers).toMatchObject(PREFLIGHT);
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    expect(preflight.headers['x-ratelimit-limit']).toBeUndefined();

    const counted = await depreciateIn(app).expect(200);
    expect(counted.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('answers a preflight for any path (never a 404)', async () => {
    const preflight = await request(app.getHttpServer())
      .options('/somewhere/else')
      .set('Origin', 'https://calculator.example')
      .set('Access-Control-Request-Method', 'GET')
      .expect(204);
    expect(preflight.text).toBe('');
    expect(preflight.headers).toMatchObject(PREFLIGHT);
  });

  it('lets browser code read the answer, its rate-limit headers and its request id', async () => {
    const { headers } = await depreciateIn(app)
      .set('Origin', 'https://calculator.example')
      .expect(200);
    expect(headers['access-control-allow-origin']).toBe('*');
    expect(headers['access-control-expose-headers']).toBe(EXPOSED);
  });
});

describe('CORS past the daily limit', () => {
  it('keeps the CORS headers on a 429, so browser code can read Retry-After', async () => {
    const overLimit = new OverLimitStorage(3600);
    const app = await createTestApp({
      override: (builder) => builder.overrideProvider(DailyLimitStorage).useValue(overLimit),
    });
    const { headers } = await depreciateIn(app)
      .set('Origin', 'https://calculator.example')
      .expect(429, limited(100));
    await app.close();
    expect(headers['access-control-allow-origin']).toBe('*');
    expect(headers['access-control-expose-headers']).toBe(EXPOSED);
    expect(headers['retry-after']).toBe('3600');
  });
});
