import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { type Addition, leaveOutEnhancers } from './additions';
import { configureErrorAnswers } from './common/error-answer';
import { ShutdownState } from './common/shutdown-state';
import { Environment } from './config/environment';
import { type EdgeSettings, installEdge } from './edge/edge';
import { trustProxyTest } from './common/express-internals';
import { BODY_LIMIT_BYTES, readJsonBody } from './common/json-body';
import { AppLogger } from './logging/app-logger';
import { requestLog } from './logging/request-log';
import { stdoutWritten } from './logging/stdout-log';
import { MetricsServer } from './metrics/metrics.server';
import { MetricsService } from './metrics/metrics.service';
import { DailyLimitPolicy } from './rate-limit/daily-limit.policy';
import { CORS_ANSWER_HEADERS } from './security/cors.options';
import { JSON_SECURITY_HEADERS, responseHeaders } from './security/security-headers';
import { DOCS_PATH, setupSwagger } from './swagger';

type Config = ConfigService<Environment, true>;

export interface AppSetup {
  /** main.ts only: SIGTERM and SIGINT shut the service down gracefully (installEdge). */
  shutDownOnSignals?: boolean;
  /** The bench's variants only (bench/variant.ts): additions left out, to measure each one's cost. */
  without?: ReadonlySet<Addition>;
}

const NOTHING_LEFT_OUT: ReadonlySet<Addition> = new Set();

/** Every setting of the edge, read from the environment in this one place. */
const edgeSettings = (config: Config): EdgeSettings => ({
  limits: {
    maxConnections: config.get('MAX_CONNECTIONS', { infer: true }),
    maxConnectionsPerClient: config.get('MAX_CONNECTIONS_PER_CLIENT', { infer: true }),
    connectionRefusalsPerClient: config.get('CONNECTION_REFUSALS_PER_CLIENT', { infer: true }),
    connectionRefusalTimeoutMs: config.get('CONNECTION_REFUSAL_TIMEOUT_MS', { infer: true }),
    maxPipelinedRequests: config.get('MAX_PIPELINED_REQUESTS', { infer: true }),
    headersTimeoutMs: config.get('HEADERS_TIMEOUT_MS', { infer: true }),
    requestTimeoutMs: config.get('REQUEST_TIMEOUT_MS', { infer: true }),
    keepAliveTimeoutMs: config.get('KEEP_ALIVE_TIMEOUT_MS', { infer: true }),
  },
  lingering: {
    timeMs: config.get('LINGERING_TIME_MS', { infer: true }),
    timeoutMs: config.get('LINGERING_TIMEOUT_MS', { infer: true }),
  },
  shutdown: {
    timeoutMs: config.get('SHUTDOWN_TIMEOUT_MS', { infer: true }),
    drainDelayMs: config.get('SHUTDOWN_DRAIN_DELAY_MS', { infer: true }),
  },
});

/**
 * The edge on the public server and the metrics server alike (connection limits, timeouts,
 * pipelining, refusals as answers, request ids, the request log and metrics, the Host check), and
 * with `shutDownOnSignals` the graceful shutdown. Which proxies may name the client is TRUST_PROXY
 * as Express compiled it (hop 0: the direct peer).
 */
function putBehindEdge(
  app: NestExpressApplication,
  config: Config,
  setup: AppSetup,
  without: ReadonlySet<Addition>,
): void {
  const trusted = trustProxyTest(app.getHttpAdapter().getInstance());
  const observers = [
    without.has('request-log') ? undefined : requestLog(app.get(AppLogger)),
    without.has('metrics') ? undefined : app.get(MetricsService).http.record,
  ];
  installEdge(
    { api: app.getHttpServer(), metrics: app.get(MetricsServer).server },
    {
      ...edgeSettings(config),
      bodyLimit: BODY_LIMIT_BYTES,
      observers: observers.filter((observer) => observer !== undefined),
      without,
      isTrustedProxy: (address) => trusted(address, 0),
      shutDownOnSignals: setup.shutDownOnSignals
        ? {
            onSignal: () => (app.get(ShutdownState).draining = true),
            close: () => app.close(),
            flushed: () => stdoutWritten(),
          }
        : undefined,
    },
  );
}

/**
 * What the HTTP layer needs beyond AppModule, in this order: the JSON logger; which proxies may
 * name the client (TRUST_PROXY); the edge (above); then as Express middleware the early refusal
 * of clients over their limit, the security headers and CORS, and the JSON body (its size and
 * type); no X-Powered-By or ETag; the docs. createApp() calls it, for main.ts and the e2e tests
 * alike.
 */
export function configureApp(
  app: NestExpressApplication,
  setup: AppSetup = {},
): NestExpressApplication {
  const config = app.get<Config>(ConfigService);
  app.useLogger(app.get(AppLogger));
  app.flushLogs();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Off unless configured: an untrusted peer's X-Forwarded-For must not change req.ip (the client).
  app.set('trust proxy', config.get('TRUST_PROXY', { infer: true }));
  // Every error answer, the edge's and the application's, carries CORS and the JSON security set.
  configureErrorAnswers({
    headers: [...CORS_ANSWER_HEADERS, ...JSON_SECURITY_HEADERS],
    bodyLimit: BODY_LIMIT_BYTES,
  });
  const without = setup.without ?? NOTHING_LEFT_OUT;
  if (!without.has('edge')) putBehindEdge(app, config, setup, without);
  // First: its 429 gets the CORS and security headers from the edge's writer, like every refusal.
  if (!without.has('early-refusal')) app.use(app.get(DailyLimitPolicy).refuseEarly);
  if (!without.has('response-headers')) app.use(responseHeaders(DOCS_PATH));
  if (without.has('json-body')) app.useBodyParser('json', { limit: BODY_LIMIT_BYTES });
  else app.use(readJsonBody(BODY_LIMIT_BYTES));
  setupSwagger(app, app.get(DailyLimitPolicy).limit);
  leaveOutEnhancers(app, without);
  return app;
}
