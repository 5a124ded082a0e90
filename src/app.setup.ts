import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AfterRoutes } from './common/after-routes';
import { ErrorResponses } from './common/error-responses';
import { inOrder } from './common/in-order';
import { Environment } from './config/environment';
import type { AnswerObserver } from './common/answer-record';
import { EDGE_SETTINGS, type EdgeSettings, installEdge } from './edge/edge';
import { trustProxyTest } from './common/platform-internals';
import { WarmUpState } from './common/warm-up-state';
import { readJsonBody } from './common/json-body';
import { ShutdownState } from './health/health.controller';
import { AppLogger } from './logging/app-logger';
import { requestLog } from './logging/request-log';
import { MetricsServer } from './metrics/metrics.server';
import { MetricsService } from './metrics/metrics.service';
import { DailyLimitPolicy } from './rate-limit/daily-limit.policy';
import { responseHeaders } from './security/security-headers';
import { Tracing } from './tracing/tracing';
import { DOCS_PATH, setupSwagger } from './swagger';

type Config = ConfigService<Environment, true>;

export interface AppSetup {
  /** main.ts only: SIGTERM, SIGINT, SIGHUP and SIGUSR2 stop the service gracefully. */
  shutDownOnSignals?: boolean;
}

export const appObservers = (app: NestExpressApplication): AnswerObserver[] => [
  requestLog(app.get(AppLogger)),
  app.get(MetricsService).recordHttp,
  ...(app.get(Tracing).on ? [app.get(Tracing).endSpans] : []),
];

/** The edge guards the metrics server too. Hop 0 of TRUST_PROXY is the direct peer. */
export function installEdgeFor(
  app: NestExpressApplication,
  setup: AppSetup = {},
  observers: AnswerObserver[] = appObservers(app),
): void {
  const config = app.get<Config>(ConfigService);
  const settings = EDGE_SETTINGS.map((name) => [name, config.get(name, { infer: true })]);
  const warmUp = app.get(WarmUpState);
  installEdge(
    { api: app.getHttpServer(), metrics: app.get(MetricsServer).server },
    {
      ...(Object.fromEntries(settings) as EdgeSettings),
      errors: app.get(ErrorResponses),
      // The warm-up's answers (warm-up.ts) are neither logged, measured nor traced.
      observers: [(answer) => !warmUp.running && observers.forEach((observe) => observe(answer))],
      serverSpans: (listener) => app.get(Tracing).serverSpans(listener),
      trustProxy: trustProxyTest(app.getHttpAdapter().getInstance()),
      shutDownOnSignals: setup.shutDownOnSignals
        ? {
            onSignal: () => (app.get(ShutdownState).draining = true),
            close: () => app.close(),
            flushed: () => app.get(AppLogger).flushed(),
          }
        : undefined,
    },
  );
}

export function applyHttpSettings(app: NestExpressApplication): void {
  app.useLogger(app.get(AppLogger));
  app.flushLogs();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Off unless configured: an untrusted peer's X-Forwarded-For must not change req.ip (the client).
  app.set('trust proxy', app.get<Config>(ConfigService).get('TRUST_PROXY', { infer: true }));
}

/**
 * The request middlewares by name, in the order they run as one Express layer (inOrder): the early
 * refusal first, whose 429 still gets CORS and the security headers from the error writer.
 */
export const requestMiddlewares = (app: NestExpressApplication) => ({
  'early-refusal': app.get(DailyLimitPolicy).refuseEarly,
  'response-headers': responseHeaders(DOCS_PATH),
  'json-body': readJsonBody(app.get(ErrorResponses)),
});

/** After the API's routes (AfterRoutes): an API request never tests a route of the docs. */
export function serveDocs(app: NestExpressApplication): void {
  app.get(AfterRoutes).add(() => setupSwagger(app));
}

/** The bench assembles its variants from these same steps (bench/assemble.ts). */
export function configureApp(
  app: NestExpressApplication,
  setup: AppSetup = {},
): NestExpressApplication {
  applyHttpSettings(app);
  installEdgeFor(app, setup);
  app.use(inOrder(...Object.values(requestMiddlewares(app))));
  serveDocs(app);
  return app;
}
