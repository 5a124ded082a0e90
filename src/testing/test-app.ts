import { INestApplication, ModuleMetadata } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from '../app.module';
import { createApp } from '../app.factory';
import { Clock } from '../common/clock';
import { MetricsServer } from '../metrics/metrics.server';
import { recordAnswer, VALID } from './bodies';
import { encodeBody, send } from './http';

interface TestAppOptions {
  /** Extra modules, controllers or providers, as a team extending the API would add them. */
  extra?: Pick<ModuleMetadata, 'imports' | 'controllers' | 'providers'>;
  /** The application's clock (a SettableClock, src/testing/settable-clock.ts) instead of the system's. */
  clock?: Clock;
  /** Override providers (the storage, the logger, …) before compiling. */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

/**
 * The production application built through the Nest testing module: AppModule with its global
 * guard, pipe and filter, configured exactly as main.ts configures it.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<NestExpressApplication> {
  let builder = Test.createTestingModule({
    imports: [AppModule, ...(options.extra?.imports ?? [])],
    controllers: options.extra?.controllers ?? [],
    providers: options.extra?.providers ?? [],
  });
  if (options.clock) builder = builder.overrideProvider(Clock).useValue(options.clock);
  if (options.override) builder = options.override(builder);
  const app = await createApp(await builder.compile());
  await app.init();
  return app;
}

/**
 * createTestApp, listening on a free port of 127.0.0.1 (for clients bound to 127.0.0.N), or of
 * another host (`::`: a dual-stack socket).
 */
export async function listenTestApp(
  options: TestAppOptions = {},
  host = '127.0.0.1',
): Promise<{ app: NestExpressApplication; port: number }> {
  const app = await createTestApp(options);
  await app.listen(0, host);
  const server: Server = app.getHttpServer();
  return { app, port: (server.address() as AddressInfo).port };
}

/**
 * What createTestApp fails with, for a test of a start-up refusal; an app that starts instead is
 * closed (so a failing test leaves nothing open), and the answer is undefined.
 */
export function startupFailure(options: TestAppOptions): Promise<unknown> {
  return listenTestApp(options).then(
    ({ app }) => app.close().then(() => undefined),
    (error: unknown) => error,
  );
}

/**
 * POST /api/depreciate to an in-process app through supertest (a test chains `.set()` and
 * `.expect()`). The body as `depreciate` sends it (src/testing/http.ts), VALID unless given.
 */
export const depreciateIn = (
  app: INestApplication,
  body: unknown = VALID,
  type = 'application/json',
): request.Test =>
  request(app.getHttpServer())
    .post('/api/depreciate')
    .set('Content-Type', type)
    .send(encodeBody(body))
    .expect(({ status, body: answered }) => {
      recordAnswer({ method: 'POST', path: '/api/depreciate', status, body: answered as unknown });
    });

/** GET /metrics on the management port of an in-process app (METRICS_PORT=0 in tests). */
export async function scrapeMetrics(app: INestApplication): Promise<string> {
  const answer = await send({ port: app.get(MetricsServer).port, path: '/metrics' });
  if (answer.status !== 200) throw new Error(`GET /metrics answered ${answer.status}`);
  return answer.text;
}
