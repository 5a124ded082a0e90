import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, OperationObject, SwaggerModule } from '@nestjs/swagger';
import { errorResponse } from './common/error-response.dto';
import { swaggerUiFiles } from './swagger-ui-files';
import { OVER_CONNECTION_CAP_MESSAGE, rateLimitMessage } from './common/error-messages';
import { DailyLimitPolicy } from './rate-limit/daily-limit.policy';
import {
  rateLimitHeaderDocs,
  useLimitInHeaderExamples,
} from './rate-limit/rate-limit-headers.docs';

export const DOCS_PATH = 'docs';

/** StrictValidationPipe refuses unknown body fields; saying so in the schemas tells clients too. */
function refuseUnknownFields(document: OpenAPIObject, operations: OperationObject[]): void {
  const schemas = document.components?.schemas ?? {};
  for (const { requestBody: body } of operations) {
    const content = body && 'content' in body ? body.content : {};
    for (const { schema } of Object.values(content)) {
      const name = schema && '$ref' in schema ? schema.$ref.split('/').pop() : undefined;
      const target = name ? schemas[name] : undefined;
      if (target && !('$ref' in target)) target.additionalProperties = false;
    }
  }
}

/** The edge's refusals that end the connection. */
const closing = (status: number, refused: string) => ({
  ...errorResponse(status),
  description: `${refused} Not counted; the connection is closed.`,
});

/** Global, so a module a team adds is documented with them without touching this file. */
const globalErrorResponses = (limit: number) => [
  closing(
    408,
    'The headers or the body did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS).',
  ),
  {
    ...errorResponse(429, rateLimitMessage(limit)),
    description: 'Daily limit of the caller exceeded (until 00:00 UTC).',
    headers: rateLimitHeaderDocs(true),
  },
  closing(431, 'Request headers over 16 KiB.'),
  { ...errorResponse(500), description: 'Unexpected failure (the detail is logged, never sent).' },
  {
    ...errorResponse(503, OVER_CONNECTION_CAP_MESSAGE),
    description:
      'More connections from this client than MAX_CONNECTIONS_PER_CLIENT. Not counted; retry ' +
      'after Retry-After seconds.',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying.',
        schema: { type: 'integer', example: 1 },
      },
    },
  },
  closing(505, 'A request line whose HTTP version is not 1.0 or 1.1 (HTTP/2.0, HTTP/0.9).'),
];

/**
 * Declare a new `@ApiTags` tag here, or the OpenAPI lint fails (`operation-tag-defined`). The
 * server `/` is what clients assume anyway, said out loud for `no-empty-servers`.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const { limit } = app.get(DailyLimitPolicy);
  const config = new DocumentBuilder()
    .setTitle('Vehicle Depreciation API')
    .setDescription(
      'What a vehicle is worth now, what it lost, and how its value fell year by year. Free, no ' +
        `key: ${limit} requests per client per UTC day, reset at 00:00 UTC.`,
    )
    .setVersion('1.0.0')
    .addServer('/', 'The host serving this document.')
    .addTag('depreciation', 'What a vehicle is worth now and how its value fell year by year.')
    .addGlobalResponse(...globalErrorResponses(limit))
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const operations = Object.values(document.paths).flatMap(
    (path) => Object.values(path) as OperationObject[],
  );
  useLimitInHeaderExamples(operations, limit);
  refuseUnknownFields(document, operations);
  return document;
}

/** JSON only (no /docs-yaml): one form to keep cached and tested, and every tool reads JSON. */
export function setupSwagger(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  app.use(`/${DOCS_PATH}`, swaggerUiFiles());
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: `${DOCS_PATH}-json`,
    raw: ['json'],
  });
}
