import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Environment, nestLogLevels } from './config/environment';
import { MetricsService } from './metrics/metrics.service';
import { setupSwagger } from './swagger';

/** Bodies above this are refused with 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

/**
 * What the HTTP layer needs beyond AppModule: the JSON body parser and its limit, no
 * X-Powered-By or ETag, the log level and the docs. main.ts and the e2e tests both call it, on an
 * application created with `{ bodyParser: false }`, so tests run what production runs.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  app.useLogger(nestLogLevels(config.get('LOG_LEVEL', { infer: true })));
  app.disable('x-powered-by');
  app.set('etag', false);
  // Before the body parser, so the answers it makes (413, malformed JSON) are measured too.
  app.use(app.get(MetricsService).http.middleware);
  app.useBodyParser('json', { limit: BODY_LIMIT_BYTES, type: 'application/json' });
  setupSwagger(app, config.get('RATE_LIMIT_PER_DAY', { infer: true }));
  return app;
}
