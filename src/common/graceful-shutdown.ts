import { INestApplication, Logger } from '@nestjs/common';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectionHolds,
  requestStartedAt,
  trackConnections,
  type TrackedSocket,
} from './connection-tracker';
import { ShutdownState } from './shutdown-state';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
/** The listener stays open until this long passes without a new connection: the kernel's queue is empty. */
const QUIET_MS = 20;
const MAX_ACCEPT_WAIT_MS = 500;
/** After the listener closes, connections that have sent no whole request's headers are closed. */
const SWEEP_AFTER_MS = 100;

export interface ShutdownOptions {
  /** SHUTDOWN_TIMEOUT_MS: how long the requests being handled may take. */
  timeoutMs: number;
  /** SHUTDOWN_DRAIN_DELAY_MS: how long readiness answers 503 while requests are still served. */
  drainDelayMs: number;
}

/** Resolves once QUIET_MS pass with no new connection: what the kernel had queued is taken in. */
async function acceptQueued(server: Server): Promise<void> {
  let accepted = 0;
  const count = () => (accepted += 1);
  server.on('connection', count);
  const deadline = Date.now() + MAX_ACCEPT_WAIT_MS;
  for (let before = -1; before !== accepted && Date.now() < deadline;) {
    before = accepted;
    await sleep(QUIET_MS);
  }
  server.off('connection', count);
}

/**
 * Closes the listener and resolves once every connection has ended. Answers carry `Connection:
 * close` from here on; idle keep-alive connections are closed at once, and those that have not sent
 * a whole request's headers SWEEP_AFTER_MS later; a connection is closed as soon as its answer is
 * sent (through Node's diagnostics channel, free until subscribed). A request whose body is still
 * arriving has until the request timeout (REQUEST_TIMEOUT_MS), which answers 408 and closes.
 */
function close(server: Server, open: Set<TrackedSocket>): Promise<void> {
  subscribe('http.server.response.finish', (message) => {
    if ((message as { server?: unknown }).server === server) {
      setImmediate(() => server.closeIdleConnections());
    }
  });
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A request a client had already sent is read within a few event-loop turns; a connection still
  // holding nothing after that is a slow client's, holding the shutdown open.
  setTimeout(() => {
    for (const socket of open) if (connectionHolds(socket) === 'nothing') socket.destroy();
  }, SWEEP_AFTER_MS).unref();
  // Node stops checking request timeouts once its listener is closed: the same check, here.
  const timeouts = setInterval(() => {
    for (const socket of open) {
      const started = requestStartedAt(socket) ?? Date.now();
      if (connectionHolds(socket) !== 'arriving' || Date.now() - started < server.requestTimeout) {
        continue;
      }
      const timedOut = Object.assign(new Error('Request timeout'), {
        code: 'ERR_HTTP_REQUEST_TIMEOUT',
      });
      server.emit('clientError', timedOut, socket);
    }
  }, 250).unref();
  return closed.finally(() => clearInterval(timeouts));
}

/**
 * On SIGTERM or SIGINT: readiness answers 503 at once, and for `drainDelayMs` requests are still
 * served (a load balancer needs time to stop sending); then what the kernel has queued is accepted,
 * the listener closed, the requests in flight finished, the application closed (every module's
 * shutdown hooks: the Redis client quits there) and the process exits 0. Nest's own
 * `enableShutdownHooks()` is not used: it runs `onModuleDestroy` before the HTTP server stops, and
 * re-raises the signal (exit code 143). Past `timeoutMs` the connections left are closed; the exit
 * is 0 if none of them had a request being handled (only requests still arriving), else 1.
 */
export function enableGracefulShutdown(app: INestApplication, options: ShutdownOptions): void {
  const logger = new Logger('Shutdown');
  const server = app.getHttpServer() as Server;
  const open = trackConnections(server);
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (closing) return;
    closing = true;
    app.get(ShutdownState).draining = true;
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) =>
      response.setHeader('Connection', 'close'),
    );
    logger.log(`${signal} received: not ready; no new connections in ${options.drainDelayMs} ms`);
    await sleep(options.drainDelayMs);
    await acceptQueued(server);
    const closed = close(server, open);
    logger.log('No new connections: finishing the requests in flight');
    setTimeout(() => {
      const handled = [...open].filter((socket) => connectionHolds(socket) === 'handled');
      if (handled.length > 0) {
        logger.error(`Still busy ${options.timeoutMs} ms after ${signal}: exiting anyway`);
        process.exit(1);
      }
      logger.warn(`Closing ${open.size} connection(s) that never sent a whole request`);
      for (const socket of open) socket.destroy();
      // Whatever else still hangs (a module's shutdown hook), it gets as long again, not more.
      setTimeout(() => {
        logger.error(`Still closing ${2 * options.timeoutMs} ms after ${signal}: exiting anyway`);
        process.exit(1);
      }, options.timeoutMs).unref();
    }, options.timeoutMs).unref();
    await closed;
    await app.close();
    logger.log('Closed');
    process.exit(0);
  };
  for (const signal of SIGNALS) {
    process.on(signal, (received: NodeJS.Signals) => {
      shutdown(received).catch((error: unknown) => {
        logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error));
        process.exit(1);
      });
    });
  }
}
