import { NestExpressApplication } from '@nestjs/platform-express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { chartJsPath, clientPath } from '../src/page/page-assets';
import { createTestApp, depreciateIn } from '../src/testing/test-app';

const LIMIT = 100;

const ASSETS = [
  ['calculator.js', 'text/javascript; charset=utf-8'],
  ['depreciation-client.js', 'text/javascript; charset=utf-8'],
  ['calculator.css', 'text/css; charset=utf-8'],
  ['chart.umd.js', 'text/javascript; charset=utf-8'],
  ['favicon.svg', 'image/svg+xml'],
] as const;

describe('The calculator page over HTTP', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  const remainingAfterOneCalculation = async (): Promise<number> => {
    const response = await depreciateIn(app).expect(200);
    return Number(response.headers['x-ratelimit-remaining']);
  };

  it('GET / answers the page as HTML, without rate-limit headers', async () => {
    const response = await request(app.getHttpServer())
      .get('/')
      .expect(200)
      .expect('Content-Type', 'text/html; charset=utf-8');
    expect(response.text).toContain('<form id="calculator"');
    expect(response.headers).not.toHaveProperty('x-ratelimit-limit');
    expect(response.headers).not.toHaveProperty('ratelimit');
  });

  it.each(ASSETS)('GET /assets/%s answers 200 as %s', async (name, type) => {
    const response = await request(app.getHttpServer())
      .get(`/assets/${name}`)
      .expect(200)
      .expect('Content-Type', type);
    expect(Number(response.headers['content-length'])).toBeGreaterThan(100);
    expect(response.headers).not.toHaveProperty('x-ratelimit-limit');
  });

  it('serves Chart.js from the chart.js dependency in node_modules', async () => {
    const packageJson = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(packageJson.dependencies).toHaveProperty(['chart.js']);
    expect(chartJsPath()).toContain(join('node_modules', 'chart.js', 'dist'));
    const response = await request(app.getHttpServer()).get('/assets/chart.umd.js').expect(200);
    expect(response.text).toBe(readFileSync(chartJsPath(), 'utf8'));
  });

  it("serves the TypeScript client's build, which the page's module script imports", async () => {
    expect(clientPath()).toBe(join(__dirname, '..', 'clients', 'typescript', 'dist', 'index.js'));
    const response = await request(app.getHttpServer())
      .get('/assets/depreciation-client.js')
      .expect(200)
      .expect('Cache-Control', 'no-cache');
    expect(response.text).toBe(readFileSync(clientPath(), 'utf8'));
    // One self-contained module: the generated types are erased, nothing else to fetch.
    expect(response.text).toMatch(/^export async function depreciate\(/m);
    expect(response.text).not.toMatch(/^\s*import\b|\bimport\(|^export .* from /m);

    const { text: html } = await request(app.getHttpServer()).get('/').expect(200);
    expect(html).toContain('<script type="module" src="/assets/calculator.js"></script>');
    const { text: script } = await request(app.getHttpServer())
      .get('/assets/calculator.js')
      .expect(200);
    expect(script).toContain("import { depreciate } from './depreciation-client.js';");
    expect(script).not.toMatch(/\bfetch\(/);
  });

  it('answers an unknown asset with the contract 404 body, and serves no folder', async () => {
    await request(app.getHttpServer())
      .get('/assets/app.js')
      .expect(404, { statusCode: 404, message: 'Cannot GET /assets/app.js' });
    await request(app.getHttpServer())
      .get('/assets/..%2Fpackage.json')
      .expect(404, { statusCode: 404, message: 'Cannot GET /assets/../package.json' });
    await request(app.getHttpServer())
      .get('/public/index.html')
      .expect(404, { statusCode: 404, message: 'Cannot GET /public/index.html' });
  });

  it('answers an asset path whose percent-encoding is malformed with the 404 of any unknown path', async () => {
    for (const path of ['/assets/%', '/assets/%zz.js', '/%']) {
      await request(app.getHttpServer())
        .get(path)
        .expect(404, { statusCode: 404, message: `Cannot GET ${path}` });
    }
  });

  it('does not count the page or its assets against the daily limit', async () => {
    const before = await remainingAfterOneCalculation();
    expect(before).toBeLessThan(LIMIT);
    for (let round = 0; round < 3; round++) {
      await request(app.getHttpServer()).get('/').expect(200);
      for (const [name] of ASSETS) await request(app.getHttpServer()).get(`/assets/${name}`);
    }
    expect(await remainingAfterOneCalculation()).toBe(before - 1);
  });

  it('keeps the page CSP-friendly: scripts and styles only from files, no inline code', async () => {
    const { text: html } = await request(app.getHttpServer()).get('/').expect(200);
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attributes of scripts) expect(attributes).toMatch(/\ssrc="\/assets\/[\w.-]+"/);
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('leaves the page out of the API documentation, which still answers', async () => {
    const { body: document } = await request(app.getHttpServer()).get('/docs-json').expect(200);
    const paths = Object.keys((document as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(['/api/depreciate']);
    await request(app.getHttpServer()).get('/docs').expect(200);
  });
});
