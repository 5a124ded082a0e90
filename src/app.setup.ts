import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { answerClientErrorsWithJson } from './common/client-error.handler';
import { Environment, nestLogLevels } from './config/environment';
import { parseTrustProxy } from './config/trust-proxy';
import { setupSwagger } from './swagger';

/** Bodies above this are refused with 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

/**
 * What the HTTP layer needs beyond AppModule: the JSON body parser and its limit, no
 * X-Powered-By or ETag, which proxies may name the client (TRUST_PROXY), JSON answers even to
 * requests Node cannot parse, the log level and the docs. main.ts and the e2e tests both call it,
 * on an application created with `{ bodyParser: false }`, so tests run what production runs.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  app.useLogger(nestLogLevels(config.get('LOG_LEVEL', { infer: true })));
  app.disable('x-powered-by');
  app.set('etag', false);
  // Off unless configured: X-Forwarded-For from an untrusted peer must not change req.ip (the client).
  app.set('trust proxy', parseTrustProxy(config.get('TRUST_PROXY', { infer: true })) ?? false);
  answerClientErrorsWithJson(app.getHttpServer());
  app.useBodyParser('json', { limit: BODY_LIMIT_BYTES, type: 'application/json' });
  setupSwagger(app, config.get('RATE_LIMIT_PER_DAY', { infer: true }));
  return app;
}
