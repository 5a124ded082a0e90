import { INestApplication, NestApplicationOptions, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { type AppSetup, configureApp } from './app.setup';

/**
 * Nest's body parser is off because configureApp mounts its own after the early refusal; logs wait
 * for the JSON logger; a start-up failure is rejected for main.ts to report, not exited by Nest.
 */
export const APPLICATION_OPTIONS: NestApplicationOptions = {
  bodyParser: false,
  bufferLogs: true,
  autoFlushLogs: false,
  abortOnError: false,
};

/** The testing module of an e2e test. */
interface ApplicationSource {
  createNestApplication<T extends INestApplication>(options?: NestApplicationOptions): T;
}

/** Shared by main.ts and the e2e tests (via a testing module): tests run what production runs. */
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
