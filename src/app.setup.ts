import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { requireHostHeader, useApiErrorBodiesInServer } from './common/http-protocol';
import { Environment } from './config/environment';
import { parseTrustProxy } from './config/trust-proxy';
import { AppLogger } from './logging/app-logger';
import { requestLog } from './logging/request-log';
import { MetricsService } from './metrics/metrics.service';
import { EarlyRefusal } from './rate-limit/early-refusal';
import { CORS_OPTIONS } from './security/cors.options';
import { docsContentSecurityPolicy, securityHeaders } from './security/security-headers';
import { DOCS_PATH, setupSwagger } from './swagger';

/** Bodies above this are refused with 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

/**
 * What the HTTP layer needs beyond AppModule, in this order: the JSON logger; which proxies may
 * name the client (TRUST_PROXY); metrics and request logs first, so answers made before routing (a
 * preflight, a 413, an early 429) are measured and logged too; the Host check, security headers
 * and CORS; the early refusal of clients over their limit; the JSON body parser and its limit; no
 * X-Powered-By or ETag; the error body for what Node would answer itself; the docs. main.ts and
 * the e2e tests both call it, on an application created with `{ bodyParser: false }`, so tests run
 * what production runs.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  app.disable('x-powered-by');
  app.set('etag', false);
  // Off unless configured: X-Forwarded-For from an untrusted peer must not change req.ip (the client).
  app.set('trust proxy', parseTrustProxy(config.get('TRUST_PROXY', { infer: true })) ?? false);
  app.use(app.get(MetricsService).http.middleware);
  app.use(requestLog(logger.pino));
  app.use(requireHostHeader);
  app.use(securityHeaders());
  app.use(`/${DOCS_PATH}`, docsContentSecurityPolicy());
  app.enableCors(CORS_OPTIONS);
  app.use(app.get(EarlyRefusal).middleware);
  app.useBodyParser('json', { limit: BODY_LIMIT_BYTES, type: 'application/json' });
  useApiErrorBodiesInServer(app.getHttpServer());
  setupSwagger(app, config.get('RATE_LIMIT_PER_DAY', { infer: true }));
  return app;
}
