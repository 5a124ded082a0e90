import { ConfigService } from '@nestjs/config';
import { LoggerModule, Params } from 'nestjs-pino';
import { HttpLogger } from 'pino-http';
import { Environment } from '../config/environment';
import { createHttpLogger, HTTP_LOGGER } from './http-logger';

/**
 * nestjs-pino over our own pino-http middleware. configureApp mounts that middleware ahead of the
 * body parser (a Nest middleware would run after it and miss the 413s and malformed bodies), so
 * nestjs-pino is told to use the existing `req.log`; its `Logger` carries Nest's own lines and the
 * exception filter's into the same JSON stream. Tests override HTTP_LOGGER to read the lines: the
 * request lines and whatever is logged while handling a request; nestjs-pino keeps one root logger
 * per process for the rest (start-up lines), the one of the first application created.
 */
export const LoggingModule = LoggerModule.forRootAsync({
  providers: [
    {
      provide: HTTP_LOGGER,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Environment, true>): HttpLogger =>
        createHttpLogger(config.get('LOG_LEVEL', { infer: true })),
    },
  ],
  inject: [HTTP_LOGGER],
  useFactory: (httpLogger: HttpLogger): Params => ({
    pinoHttp: { logger: httpLogger.logger },
    useExisting: true,
  }),
});
