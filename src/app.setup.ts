import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import {
  type ConnectionLimits,
  limitConnections,
  limitPipelining,
} from './common/connection-limits';
import { isJsonContentType } from './common/json-content-type.guard';
import {
  refuseDeclaredOversize,
  requireHostHeader,
  useApiErrorBodiesInServer,
} from './common/http-protocol';
import { Environment } from './config/environment';
import { AppLogger } from './logging/app-logger';
import { identifyRequest, requestLog } from './logging/request-log';
import { responseHook } from './common/response-hook';
import { MetricsService } from './metrics/metrics.service';
import { DailyLimitPolicy } from './rate-limit/daily-limit.policy';
import { CORS_OPTIONS } from './security/cors.options';
import { docsContentSecurityPolicy, securityHeaders } from './security/security-headers';
import { DOCS_PATH, setupSwagger } from './swagger';

/** Bodies above this are refused with 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

const connectionLimits = (config: ConfigService<Environment, true>): ConnectionLimits => ({
  maxConnections: config.get('MAX_CONNECTIONS', { infer: true }),
  maxConnectionsPerClient: config.get('MAX_CONNECTIONS_PER_CLIENT', { infer: true }),
  maxPipelinedRequests: config.get('MAX_PIPELINED_REQUESTS', { infer: true }),
  headersTimeoutMs: config.get('HEADERS_TIMEOUT_MS', { infer: true }),
  requestTimeoutMs: config.get('REQUEST_TIMEOUT_MS', { infer: true }),
  keepAliveTimeoutMs: config.get('KEEP_ALIVE_TIMEOUT_MS', { infer: true }),
});

/**
 * What the HTTP layer needs beyond AppModule, in this order: the JSON logger; which proxies may
 * name the client (TRUST_PROXY); the connection limits and the pipelining depth; the response hook
 * (request log and metrics), so answers made before routing (a preflight, a 413, an early 429) are
 * logged and measured too; the Host check, security headers and CORS; the early refusal of clients
 * over their limit; the refusal of oversized declared bodies; the JSON body parser and its limit;
 * no X-Powered-By or ETag; the error body for what Node would answer itself; the docs. createApp()
 * calls it, for main.ts and the e2e tests alike.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  app.flushLogs();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Off unless configured: an untrusted peer's X-Forwarded-For must not change req.ip (the client).
  app.set('trust proxy', config.get('TRUST_PROXY', { infer: true }));
  const limits = connectionLimits(config);
  // Express compiles TRUST_PROXY into this test of a peer's address (hop 0: the direct peer).
  const express = app.getHttpAdapter().getInstance() as { get(name: string): unknown };
  const trusted = express.get('trust proxy fn') as (address: string, hop: number) => boolean;
  limitConnections(app.getHttpServer(), limits, (address) => trusted(address, 0));
  app.use(limitPipelining(limits.maxPipelinedRequests));
  app.use(
    responseHook([requestLog(logger.pino), app.get(MetricsService).http.record], identifyRequest),
  );
  app.use(requireHostHeader);
  app.use(securityHeaders(DOCS_PATH));
  app.use(`/${DOCS_PATH}`, docsContentSecurityPolicy());
  app.enableCors(CORS_OPTIONS);
  app.use(app.get(DailyLimitPolicy).refuseEarly);
  app.use(refuseDeclaredOversize(BODY_LIMIT_BYTES));
  app.useBodyParser('json', {
    limit: BODY_LIMIT_BYTES,
    type: (request) => isJsonContentType(request.headers['content-type']),
  });
  useApiErrorBodiesInServer(app.getHttpServer());
  setupSwagger(app, config.get('RATE_LIMIT_PER_DAY', { infer: true }));
  return app;
}
