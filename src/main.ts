import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createApp } from './app.factory';
import { explainListenError, ListenError } from './common/listen-error';
import { ShutdownState } from './common/shutdown-state';
import { Environment, InvalidConfigurationError } from './config/environment';
import { edgeOf } from './edge/edge';
import { enableGracefulShutdown } from './edge/shutdown';
import { errorText } from './edge/error-text';
import { EvictingRedisError } from './rate-limit/redis-server-check';
import { stdoutWritten } from './logging/stdout-log';

async function bootstrap(): Promise<void> {
  const app = await createApp();
  const config = app.get<ConfigService<Environment, true>>(ConfigService);
  enableGracefulShutdown(edgeOf(app.getHttpServer()), {
    timeoutMs: config.get('SHUTDOWN_TIMEOUT_MS', { infer: true }),
    drainDelayMs: config.get('SHUTDOWN_DRAIN_DELAY_MS', { infer: true }),
    onSignal: () => (app.get(ShutdownState).draining = true),
    close: () => app.close(),
    flushed: () => stdoutWritten(),
  });
  const [port, host] = [config.get('PORT', { infer: true }), config.get('HOST', { infer: true })];
  await app.listen(port, host).catch((error: unknown) => {
    throw explainListenError(error, 'PORT');
  });
  // Which runtime serves matters to operators: the project pins its own (the `node` package).
  Logger.log(
    `Listening on http://${host}:${port} (Node ${process.version}, pid ${process.pid})`,
    'Bootstrap',
  );
}

// A bad variable (ConfigModule validates the environment), a port that cannot be had or a Redis
// that may evict the daily counters stops start-up with one line; any other failure with its stack.
bootstrap().catch(async (error: unknown) => {
  const bad =
    error instanceof InvalidConfigurationError ||
    error instanceof ListenError ||
    error instanceof EvictingRedisError;
  console.error(bad ? error.message : `Failed to start: ${errorText(error, 'stack')}`);
  // The log's lines (written before the failure) are not lost to the exit.
  await stdoutWritten();
  process.exit(1);
});
