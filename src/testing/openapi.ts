import Ajv, { type ValidateFunction } from 'ajv';
import type { OpenAPIV3 } from 'openapi-types';
import request from 'supertest';
import { createTestApp } from './test-app';

let served: Promise<OpenAPIV3.Document> | undefined;

/** The OpenAPI document as /docs-json serves it (the default configuration), fetched once per file. */
function servedDocument(): Promise<OpenAPIV3.Document> {
  served ??= (async () => {
    const app = await createTestApp();
    try {
      return (await request(app.getHttpServer()).get('/docs-json').expect(200))
        .body as OpenAPIV3.Document;
    } finally {
      await app.close();
    }
  })();
  return served;
}

const validators = new Map<string, ValidateFunction>();
let ajv: Ajv | undefined;

/** The schema the document gives an answer: `$ref` of its JSON content, by path, method, status. */
function documentedSchema(
  document: OpenAPIV3.Document,
  method: string,
  path: string,
  status: number,
): string {
  const operation = document.paths[path]?.[method.toLowerCase() as OpenAPIV3.HttpMethods];
  const response = operation?.responses[String(status)] as OpenAPIV3.ResponseObject | undefined;
  const schema = response?.content?.['application/json']?.schema as OpenAPIV3.ReferenceObject;
  if (!schema?.$ref) throw new Error(`${method} ${path} does not document a JSON ${status}`);
  return schema.$ref;
}

/**
 * Throws unless `body` is what the OpenAPI document promises for `method path` answering `status`
 * (the schemas clients generate their types from), so every e2e answer also checks the document.
 */
export async function expectDocumentedAnswer(
  method: string,
  path: string,
  status: number,
  body: unknown,
): Promise<void> {
  const document = await servedDocument();
  const ref = documentedSchema(document, method, path, status);
  if (ajv === undefined) {
    // OpenAPI 3.0 schemas are JSON Schema with a few keywords of their own (example, nullable).
    ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema(document, 'openapi');
  }
  let validate = validators.get(ref);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `openapi${ref}` });
    validators.set(ref, validate);
  }
  if (!validate(body)) {
    const errors = ajv.errorsText(validate.errors);
    throw new Error(`${method} ${path} ${status} does not match ${ref}: ${errors}`);
  }
}
