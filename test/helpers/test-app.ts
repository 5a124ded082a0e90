import { ModuleMetadata } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { createApp } from '../../src/app.factory';
import { Clock } from '../../src/common/clock';

export interface TestAppOptions {
  /** Extra modules, controllers or providers, as a team extending the API would add them. */
  extra?: Pick<ModuleMetadata, 'imports' | 'controllers' | 'providers'>;
  /** The application's clock (a SettableClock, test/helpers/clock.ts) instead of the system's. */
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

/** createTestApp, listening on a free port of 127.0.0.1 (for clients bound to 127.0.0.N). */
export async function listenTestApp(
  options: TestAppOptions = {},
): Promise<{ app: NestExpressApplication; port: number }> {
  const app = await createTestApp(options);
  await app.listen(0, '127.0.0.1');
  const server: Server = app.getHttpServer();
  return { app, port: (server.address() as AddressInfo).port };
}
