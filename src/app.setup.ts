import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { HttpLogger } from 'pino-http';
import { Environment } from './config/environment';
import { HTTP_LOGGER } from './logging/http-logger';
import { MetricsService } from './metrics/metrics.service';
import { CORS_OPTIONS } from './security/cors.options';
import { docsContentSecurityPolicy, securityHeaders } from './security/security-headers';
import { DOCS_PATH, setupSwagger } from './swagger';

/** Bodies above this are refused with 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

/**
 * What the HTTP layer needs beyond AppModule: JSON logs (pino), metrics and request logs, security
 * headers and CORS, the JSON body parser and its limit, no X-Powered-By or ETag, and the docs.
 * main.ts and the e2e tests both call it, on an application created with `{ bodyParser: false }`,
 * so tests run what production runs.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('etag', false);
  // Before the body parser, so the answers it makes (413, malformed JSON) are measured and logged.
  app.use(app.get(MetricsService).http.middleware);
  app.use(app.get<HttpLogger>(HTTP_LOGGER));
  app.use(securityHeaders());
  app.use(`/${DOCS_PATH}`, docsContentSecurityPolicy());
  app.enableCors(CORS_OPTIONS);
  app.useBodyParser('json', { limit: BODY_LIMIT_BYTES, type: 'application/json' });
  setupSwagger(app, config.get('RATE_LIMIT_PER_DAY', { infer: true }));
  return app;
}
