import { INestApplication, Logger } from '@nestjs/common';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Stops accepting connections and resolves once every open connection has ended. Idle keep-alive
 * connections are closed at once (`server.close()` does that); a request arriving on an open
 * connection is answered with `Connection: close`; a connection whose answer was in flight is
 * closed as soon as that answer is sent (through Node's diagnostics channel, which costs nothing
 * until subscribed), rather than after the keep-alive timeout.
 */
function drain(server: Server): Promise<void> {
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) =>
    response.setHeader('Connection', 'close'),
  );
  subscribe('http.server.response.finish', (message) => {
    if ((message as { server?: unknown }).server === server) {
      setImmediate(() => server.closeIdleConnections());
    }
  });
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * On SIGTERM or SIGINT: refuse new connections, let the requests in flight finish, then close the
 * application (every module's shutdown hooks: the Redis client quits there) and exit 0. Nest's own
 * `enableShutdownHooks()` is not used: it runs `onModuleDestroy` before the HTTP server stops, so
 * resources would close under requests still running, and it ends by re-raising the signal (exit
 * code 143, not 0). Past `timeoutMs` (SHUTDOWN_TIMEOUT_MS, 10 s by default) the process exits 1,
 * whatever still hangs.
 */
export function enableGracefulShutdown(app: INestApplication, timeoutMs: number): void {
  const logger = new Logger('Shutdown');
  let closing = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    // The listening socket closes first, so whoever reads this line finds new connections refused.
    const drained = drain(app.getHttpServer() as Server);
    logger.log(`${signal} received: no new connections, finishing the requests in flight`);
    setTimeout(() => {
      logger.error(`Still busy ${timeoutMs} ms after ${signal}: exiting anyway`);
      process.exit(1);
    }, timeoutMs).unref();
    drained
      .then(() => app.close())
      .then(() => {
        logger.log('Closed');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error));
        process.exit(1);
      });
  };
  for (const signal of SIGNALS) process.on(signal, shutdown);
}
