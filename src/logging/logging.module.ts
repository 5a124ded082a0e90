import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Environment } from '../config/environment';
import { AppLogger, createAppLogger } from './app-logger';

/**
 * Provides the application's `AppLogger` (pino, JSON lines on stdout at LOG_LEVEL). configureApp
 * makes it Nest's logger and mounts the request log over its pino logger. Tests read the lines by
 * overriding it: `overrideProvider(AppLogger).useValue(createAppLogger('info', destination))`.
 */
@Global()
@Module({
  providers: [
    {
      provide: AppLogger,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Environment, true>): AppLogger =>
        createAppLogger(config.get('LOG_LEVEL', { infer: true })),
    },
  ],
  exports: [AppLogger],
})
export class LoggingModule {}
