import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import request from 'supertest';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import { expectDocumentedAnswer } from '../src/testing/openapi';
import { README_EXAMPLE_REQUEST } from '../src/testing/readme-example';
import {
  INTERNAL_ERROR,
  INVALID,
  limited,
  TOO_LARGE,
  UNSUPPORTED_TYPE,
} from '../src/testing/bodies';
import { exchange, parseResponses, type RawResponse } from '../src/testing/raw-http';
import { createTestApp, listenTestApp } from '../src/testing/test-app';

interface OpenApi {
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; requestBody: unknown }>
  >;
  components: {
    schemas: Record<
      string,
      { properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean }
    >;
  };
}

// The examples at a configured limit (a built server's RATE_LIMIT_PER_DAY) are checked in
// server-process.e2e-spec.ts, against the server it starts with that limit.
describe('the docs (/docs, /docs-json)', () => {
  let app: INestApplication;
  let document: OpenApi;

  beforeAll(async () => {
    app = await createTestApp();
    document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body as OpenApi;
  });

  afterAll(() => app.close());

  it('serves Swagger UI as HTML', async () => {
    const { text } = await request(app.getHttpServer())
      .get('/docs')
      .expect(200)
      .expect('Content-Type', 'text/html; charset=utf-8');
    expect(text).toContain('<title>Swagger UI</title>');
    expect(text).toContain('<div id="swagger-ui"></div>');
  });

  it("is mounted after the API's routes: an API request tests no route of the docs", () => {
    // Express 5's router: its layers in order, a route's path on its `route` (test-only reading).
    const express = (app as NestExpressApplication).getHttpAdapter().getInstance() as {
      router: { stack: { route?: { path: string } }[] };
    };
    const paths = express.router.stack.map((layer) => layer.route?.path ?? '');
    const api = paths.indexOf('/api/depreciate');
    const docs = paths.findIndex((path) => path.startsWith('/docs'));
    expect(api).toBeGreaterThanOrEqual(0);
    expect(docs).toBeGreaterThan(api);
  });

  it('describes the request with its rules, the nine types as an enum, and an example', () => {
    const operation = document.paths['/api/depreciate'].post;
    expect(operation.requestBody).toMatchObject({
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/DepreciationRequest' },
          examples: {
            sedan: { value: README_EXAMPLE_REQUEST },
          },
        },
      },
    });
    const schema = document.components.schemas.DepreciationRequest;
    expect(schema.required).toEqual(['purchaseYear', 'purchasePrice', 'vehicleType']);
    // Unknown fields are refused (400), and the document says so.
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties).toMatchObject({
      purchaseYear: { type: 'integer', minimum: 1900 },
      purchasePrice: { type: 'number', minimum: 0.01, maximum: 10_000_000 },
      vehicleType: { allOf: [{ $ref: '#/components/schemas/VehicleType' }] },
      currentMileage: { type: 'number', minimum: 0, default: 0 },
      projectionYears: { type: 'integer', minimum: 0, maximum: 10, default: 0, example: 5 },
    });
    expect(document.components.schemas.VehicleType).toEqual({
      type: 'string',
      enum: ['sedan', 'suv', 'truck', 'luxury', 'economy', 'sports', 'ev', 'motorcycle', 'rv'],
    });
  });

  it('describes the success body and every error with the error schema', () => {
    const { responses } = document.paths['/api/depreciate'].post;
    expect(responses['200']).toMatchObject({
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/DepreciationResponse' } },
      },
    });
    for (const error of [INVALID, TOO_LARGE, UNSUPPORTED_TYPE, limited(100), INTERNAL_ERROR]) {
      expect(responses[String(error.statusCode)]).toMatchObject({
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ErrorResponse' },
            example: error,
          },
        },
      });
    }
    expect(document.components.schemas.ErrorResponse.properties).toEqual({
      statusCode: expect.objectContaining({ type: 'number' }),
      message: expect.objectContaining({ type: 'string' }),
    });
    expect(Object.keys(document.components.schemas.DepreciationData.properties)).toEqual([
      'currentValue',
      'totalDepreciation',
      'totalDepreciationPercent',
      'monthlyDepreciation',
      'yearlyBreakdown',
      'projection',
    ]);
    // Present only when asked for, so never promised.
    expect(document.components.schemas.DepreciationData.required).not.toContain('projection');
  });

  it('documents the rate-limit headers of every counted answer, and Retry-After on the 429', () => {
    const responses = document.paths['/api/depreciate'].post.responses as Record<
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
    expect(responses['200'].headers?.['RateLimit-Policy']).toMatchObject({
      schema: { type: 'string', example: '"daily";q=100;w=86400' },
    });
  });

  it('is a valid OpenAPI document, whose schemas have the public names clients generate', async () => {
    await expect(
      SwaggerParser.validate(structuredClone(document) as unknown as OpenAPIV3.Document),
    ).resolves.toBeDefined();
    expect(Object.keys(document.components.schemas).sort()).toEqual([
      'DepreciationData',
      'DepreciationMeta',
      'DepreciationRequest',
      'DepreciationResponse',
      'ErrorResponse',
      'VehicleType',
      'YearlyEntry',
    ]);
  });

  it('refuses, through its schemas, bodies that are not what the API answers', async () => {
    await expect(
      expectDocumentedAnswer('POST', '/api/depreciate', 429, { statusCode: 429 }),
    ).rejects.toThrow("must have required property 'message'");
    await expect(
      expectDocumentedAnswer('POST', '/api/depreciate', 200, { data: {}, meta: {} }),
    ).rejects.toThrow('does not match #/components/schemas/DepreciationResponse');
    await expect(
      expectDocumentedAnswer('POST', '/api/depreciate', 404, { statusCode: 404, message: 'x' }),
    ).rejects.toThrow('does not document a JSON 404');
  });
});

/** The files Swagger UI's page loads, with their types: the only files of swagger-ui-dist served. */
const UI_FILES = [
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
] as const;
const SWAGGER_UI_DIST = dirname(
  createRequire(require.resolve('@nestjs/swagger')).resolve('swagger-ui-dist/package.json'),
);
const notFound = (path: string) => ({ statusCode: 404, message: `Cannot GET ${path}` });

/**
 * Everything under /docs answers inside the contract (docs/contract.md, "Errors"): Swagger UI's
 * page, its init script and the files the page loads, and for any other path the JSON 404; no
 * HTML redirect, no other file of swagger-ui-dist, no ETag or range (docs/operations.md).
 */
describe('the files under /docs', () => {
  let app: NestExpressApplication;
  let port: number;

  beforeAll(async () => {
    ({ app, port } = await listenTestApp());
  });
  afterAll(() => app.close());

  /** GET `target` as written (no client normalizes its dots or its percent signs). */
  async function getRaw(target: string): Promise<RawResponse> {
    const bytes = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
    const { received } = await exchange(Buffer.from(bytes), { port });
    return parseResponses(received)[0];
  }

  it('serves each file the page loads, from memory, with a day of max-age and no validator or range', async () => {
    // What each form of the page's address loads, its links resolved as a browser does.
    const files = [...UI_FILES.map(([name]) => `/docs/${name}`), '/docs/swagger-ui-init.js'];
    for (const path of ['/docs', '/docs/']) {
      const { text: page } = await request(app.getHttpServer()).get(path).expect(200);
      const links = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]);
      const loaded = links.map((link) => new URL(link, `http://127.0.0.1${path}`).pathname);
      expect([path, loaded.sort()]).toEqual([path, [...files].sort()]);
    }
    for (const [name, type] of UI_FILES) {
      const answer = await getRaw(`/docs/${name}`);
      expect([name, answer.status, answer.headers['content-type']]).toEqual([name, 200, type]);
      expect(answer.headers['cache-control']).toBe('public, max-age=86400');
      for (const header of ['etag', 'last-modified', 'accept-ranges']) {
        expect([name, header, answer.headers[header]]).toEqual([name, header, undefined]);
      }
      expect(answer.body.equals(readFileSync(join(SWAGGER_UI_DIST, name)))).toBe(true);
    }
    const ranged = await request(app.getHttpServer())
      .get('/docs/swagger-ui.css')
      .set('Range', 'bytes=0-9')
      .expect(200);
    expect(ranged.headers['content-range']).toBeUndefined();
  });

  it('sends the page and its init script, made from the document, with no-cache and no ETag', async () => {
    for (const path of ['/docs', '/docs/', '/docs/swagger-ui-init.js']) {
      const answer = await getRaw(path);
      expect([path, answer.status, answer.headers['cache-control']]).toEqual([
        path,
        200,
        'no-cache',
      ]);
      expect(answer.headers.etag).toBeUndefined();
    }
  });

  it.each([
    '/docs/package.json',
    '/docs/README.md',
    '/docs/NOTICE',
    '/docs/LICENSE',
    '/docs/absolute-path.js',
    '/docs/index.js',
    '/docs/index.html',
    '/docs/oauth2-redirect.html',
    '/docs/swagger-ui.js',
    '/docs/swagger-ui.js.map',
    '/docs/swagger-ui-bundle.js.map',
    '/docs/swagger-ui-es-bundle.js',
    '/docs/docs/swagger-ui-init.js',
  ])('answers %s, a file the page does not load, with the JSON 404', async (path) => {
    await request(app.getHttpServer()).get(path).expect(404, notFound(path));
  });

  it.each(['/docs/.', '/docs/swagger-ui.css/..', '/docs/%2e%2e/package.json', '/docs/%'])(
    'answers %s with the JSON 404, never an HTML redirect',
    async (path) => {
      const answer = await getRaw(path);
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers.location).toBeUndefined();
      expect(JSON.parse(answer.body.toString())).toEqual(notFound(path));
    },
  );
});
