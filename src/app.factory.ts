import { INestApplication, NestApplicationOptions, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { createServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { AppModule } from './app.module';
import { type AppSetup, configureApp } from './app.setup';

/**
 * Nest's body parser is off because configureApp mounts its own after the early refusal; logs wait
 * for the JSON logger; a start-up failure is rejected for main.ts to report, not exited by Nest.
 */
const APPLICATION_OPTIONS: NestApplicationOptions = {
  bodyParser: false,
  bufferLogs: true,
  autoFlushLogs: false,
  abortOnError: false,
};

/**
 * Nest's Express adapter, its server made with Node's public option `requireHostHeader: false`
 * (Nest's passes none): the edge answers a request without Host itself, with the error body. Nest's
 * `return503OnClosing` and `forceCloseConnections` are not taken: the edge's shutdown drains.
 */
class ExpressEdgeAdapter extends ExpressAdapter {
  override initHttpServer({ httpsOptions }: NestApplicationOptions): void {
    const app = this.getInstance<RequestListener>();
    this.httpServer = httpsOptions
      ? createHttpsServer({ ...httpsOptions, requireHostHeader: false }, app)
      : createServer({ requireHostHeader: false }, app);
  }
}

/** The testing module of an e2e test. */
interface ApplicationSource {
  createNestApplication<T extends INestApplication>(
    adapter: ExpressAdapter,
    options?: NestApplicationOptions,
  ): T;
}

/** A Nest application of `module` as production makes it: main.ts, the bench's variants. */
export const createNestApp = (module: Type<unknown>): Promise<NestExpressApplication> =>
  NestFactory.create<NestExpressApplication>(module, new ExpressEdgeAdapter(), APPLICATION_OPTIONS);

/** Shared by main.ts and the e2e tests (via a testing module): tests run what production runs. */
export async function createApp(
  source: Type<unknown> | ApplicationSource = AppModule,
  setup: AppSetup = {},
): Promise<NestExpressApplication> {
  const app =
    typeof source === 'function'
      ? await createNestApp(source)
      : source.createNestApplication<NestExpressApplication>(
          new ExpressEdgeAdapter(),
          APPLICATION_OPTIONS,
        );
  return configureApp(app, setup);
}
