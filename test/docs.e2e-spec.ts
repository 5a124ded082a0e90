import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import { expectDocumentedAnswer } from './helpers/openapi';
import { README_EXAMPLE_REQUEST } from '../src/testing/readme-example';
import { INTERNAL_ERROR, INVALID, limited, TOO_LARGE, UNSUPPORTED_TYPE } from './helpers/bodies';
import { createTestApp } from './helpers/test-app';

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
