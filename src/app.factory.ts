import { INestApplication, NestApplicationOptions, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { type AppSetup, configureApp } from './app.setup';

/**
 * How every application is created: Nest's own body parser off (configureApp mounts the JSON one,
 * with its limit, after the early refusal); logs buffered until configureApp installs the JSON
 * logger and flushes them; a start-up failure rejected with its error (main.ts reports it), not
 * logged by Nest in its own format nor exited from inside Nest.
 */
export const APPLICATION_OPTIONS: NestApplicationOptions = {
  bodyParser: false,
  bufferLogs: true,
  autoFlushLogs: false,
  abortOnError: false,
};

/** A compiled module that can make an application: the testing module of an e2e test. */
interface ApplicationSource {
  createNestApplication<T extends INestApplication>(options?: NestApplicationOptions): T;
}

/**
 * The application, configured: main.ts creates it from AppModule, e2e tests from a testing module
 * built on AppModule (`Test.createTestingModule(...).compile()`), so tests run what production
 * runs.
 */
export async function createApp(
  source: Type<unknown> | ApplicationSource = AppModule,
  setup: AppSetup = {},
): Promise<NestExpressApplication> {
  const app =
    typeof source === 'function'
      ? await NestFactory.create<NestExpressApplication>(source, APPLICATION_OPTIONS)
      : source.createNestApplication<NestExpressApplication>(APPLICATION_OPTIONS);
  return configureApp(app, setup);
}
