import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Counter } from 'prom-client';
import { Environment } from '../config/environment';
import { MetricsService } from '../metrics/metrics.service';
import { AppLogger, createAppLogger } from './app-logger';
import { StdoutLog } from './stdout-log';

function stdoutLogger(config: ConfigService<Environment, true>, metrics: MetricsService) {
  const dropped = new Counter({
    name: 'log_lines_dropped_total',
    help: 'Log lines dropped because stdout held LOG_BUFFER_BYTES its reader had not read.',
    registers: [metrics.registry],
  });
  const bufferBytes = config.get('LOG_BUFFER_BYTES', { infer: true });
  const output = new StdoutLog(bufferBytes, () => dropped.inc());
  const logger = createAppLogger(config.get('LOG_LEVEL', { infer: true }), output);
  output.onResumed = (lines) =>
    logger.pino.warn(
      { droppedLines: lines },
      `stdout is read again: ${lines} log lines were dropped while it was not`,
    );
  return logger;
}

/**
 * configureApp makes it Nest's logger and mounts the request log on it. Tests read its lines with
 * `overrideProvider(AppLogger).useValue(createAppLogger('info', destination))`.
 */
@Global()
@Module({
  providers: [
    { provide: AppLogger, inject: [ConfigService, MetricsService], useFactory: stdoutLogger },
  ],
  exports: [AppLogger],
})
export class LoggingModule {}
