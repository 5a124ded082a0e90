import { Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptQueued } from './accept-queue';
import { closeAnswersFromNow } from './answers';
import { connectionHolds } from './connection';
import { errorText } from '../common/error-text';
import { closeListener } from '../common/node-internals';
import { isLingering, type LingeringBounds, lingeringClose } from './lingering-close';
import { answerOnSocket } from './socket-answers';

/**
 * The signals that stop the service gracefully. SIGHUP and SIGUSR2 too: Node's default for both is
 * to end the process at once (no drain, no log line), and whoever sends them expects it to end (a
 * terminal closing sends SIGHUP; nodemon restarts with SIGUSR2). There is nothing to reload (the
 * settings are read once, the log goes to stdout), so a daemon's "HUP reloads" has no meaning here.
 */
const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR2'];
/** After the listener closes, how often connections that hold no whole request are looked at. */
const SWEEP_EVERY_MS = 100;
/** …and how long such a connection must have sent nothing before it is answered 408 or closed. */
const QUIET_CLIENT_MS = 500;

/**
 * A server under the edge (installEdge): its open connections, and whether its answers close them.
 * Whether the instance is ready is another decision, ShutdownState's (common/shutdown-state.ts),
 * which the signal sets once through ShutdownHooks.onSignal.
 */
export interface Edge {
  readonly server: Server;
  readonly connections: Set<Socket>;
  readonly lingering: LingeringBounds;
  /**
   * Answers say `Connection: close` when their head is written during the drain delay, or once the
   * listener is closed (not while the kernel's queue is emptied between them): answers.ts,
   * closeIfShutdownStillSays.
   */
  closeAnswers: boolean;
}

export interface ShutdownBounds {
  /**
   * SHUTDOWN_TIMEOUT_MS: from the end of the drain delay, how long taking in the kernel's queue
   * (half of it at most) and then the requests being handled may take.
   */
  timeoutMs: number;
  /** SHUTDOWN_DRAIN_DELAY_MS: how long readiness answers 503 while requests are still served. */
  drainDelayMs: number;
}

/** What the application does at each step of a shutdown. */
export interface ShutdownHooks {
  /** At the signal: readiness starts answering 503. */
  onSignal: () => void;
  /** Once every connection has ended: the application closes (every module's shutdown hooks). */
  close: () => Promise<void>;
  /** Before every exit: resolves once the log's lines are written, or its own bound has passed. */
  flushed: () => Promise<void>;
}

/**
 * Stops listening and resolves once every connection has ended, resetting none the server has
 * accepted: every answer already says `Connection: close` and ends with a lingering close. Node's
 * own `server.close()` is not used: it closes idle keep-alive connections at once (a client
 * sending its next request just then gets a reset) and stops checking the header and request
 * timeouts. Instead, idle keep-alive connections end at their keep-alive timeout (clients that read
 * the `Keep-Alive: timeout` hint, as Node's agent and fetch do, stop using them before); a
 * connection that has sent only part of a request's headers and nothing for QUIET_CLIENT_MS is
 * answered 408, and one that has sent nothing at all for as long is closed gently (a lingering
 * close, no reset).
 */
function stopListening(edge: Edge): Promise<void> {
  const closed = new Promise<void>((resolve) => closeListener(edge.server, resolve));
  const quietSince = new Map<Socket, { bytes: number; since: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const socket of edge.connections) {
      if (isLingering(socket)) continue;
      const seen = quietSince.get(socket);
      if (seen === undefined || seen.bytes !== socket.bytesRead) {
        quietSince.set(socket, { bytes: socket.bytesRead, since: now });
        continue;
      }
      // A connection is judged only once it has sent nothing for QUIET_CLIENT_MS: under load a
      // request can wait in the kernel a while before the server reads it.
      if (now - seen.since < QUIET_CLIENT_MS) continue;
      const holds = connectionHolds(socket);
      if (holds === 'headers') answerOnSocket(socket, 408);
      else if (holds === 'nothing' && socket.bytesRead === 0) {
        lingeringClose(socket, edge.lingering);
      }
    }
    for (const socket of quietSince.keys()) if (socket.destroyed) quietSince.delete(socket);
  }, SWEEP_EVERY_MS).unref();
  return closed.finally(() => clearInterval(sweep));
}

/**
 * process.exit(code) once the log is written (or its bound passed); the first exit called wins, so
 * a shutdown that ends while a forced exit waits for the log cannot change its code.
 */
function exitOnce(flushed: () => Promise<void>): (code: number) => void {
  let exiting = false;
  return (code) => {
    if (exiting) return;
    exiting = true;
    void flushed().finally(() => process.exit(code));
  };
}

/**
 * On SIGTERM, SIGINT, SIGHUP or SIGUSR2: readiness answers 503 at once, and for `drainDelayMs` requests are still
 * served, their connections closed after each answer (a load balancer needs time to stop sending,
 * and its pooled connections must move). Then keep-alive until what the kernel has queued is
 * accepted, the listener closed, every answer from there on closing its connection, the
 * connections ended without a reset (stopListening), the application closed (the Redis client
 * quits there) and the process exits 0. Nest's own `enableShutdownHooks()` is not used: it runs
 * `onModuleDestroy` before the HTTP server stops, and re-raises the signal (exit code 143).
 * `timeoutMs` after the drain delay the connections left are closed; the exit is 0 if none of them
 * had a request being handled (only requests still arriving, or idle connections), else 1.
 */
export function enableGracefulShutdown(
  edge: Edge,
  bounds: ShutdownBounds,
  hooks: ShutdownHooks,
): void {
  const shutdown = new Shutdown(edge, bounds, hooks);
  for (const signal of SIGNALS) process.on(signal, (received) => shutdown.start(received));
}

class Shutdown {
  private readonly logger = new Logger('Shutdown');
  private readonly exit: (code: number) => void;
  private started = false;

  constructor(
    private readonly edge: Edge,
    private readonly bounds: ShutdownBounds,
    private readonly hooks: ShutdownHooks,
  ) {
    this.exit = exitOnce(hooks.flushed);
  }

  start(signal: NodeJS.Signals): void {
    if (this.started) return;
    this.started = true;
    this.run(signal).catch((error: unknown) => {
      this.logger.error('Shutdown failed', errorText(error, 'stack'));
      this.exit(1);
    });
  }

  private async run(signal: NodeJS.Signals): Promise<void> {
    const { edge, bounds } = this;
    this.hooks.onSignal();
    this.logger.log(
      `${signal} received: not ready; no new connections in ${bounds.drainDelayMs} ms`,
    );
    // During the drain delay answers close their connections, so clients behind a load balancer
    // reconnect to other instances.
    if (bounds.drainDelayMs > 0) closeAnswersFromNow(edge);
    await sleep(bounds.drainDelayMs);
    // Then keep-alive again until the listener is closed: a client that reconnected after every
    // answer would always have a connection in the kernel's queue, and closing the listener
    // resets those. Once the queue is empty the listener closes, and only then does every answer
    // close its connection: the client's next connection is refused, not reset.
    edge.closeAnswers = false;
    // SHUTDOWN_TIMEOUT_MS counts from here: taking in the queue (half of it at most, so the
    // requests taken in last have the other half), then finishing the requests in flight.
    const deadline = setTimeout(() => this.closeLeftovers(signal), bounds.timeoutMs).unref();
    await acceptQueued(edge.server, Date.now() + bounds.timeoutMs / 2);
    const closed = stopListening(edge);
    closeAnswersFromNow(edge);
    this.logger.log('No new connections: finishing the requests in flight');
    await closed;
    clearTimeout(deadline);
    await this.closeApplication();
  }

  /** Past the timeout: exit 1 if a request is still being handled, else close what is left. */
  private closeLeftovers(signal: NodeJS.Signals): void {
    const open = [...this.edge.connections];
    if (open.some((socket) => connectionHolds(socket) === 'handled')) {
      this.logger.error(`Still busy ${this.bounds.timeoutMs} ms after ${signal}: exiting anyway`);
      this.exit(1);
      return;
    }
    this.logger.warn(`Closing ${open.length} connection(s) that never sent a whole request`);
    for (const socket of open) socket.destroy();
  }

  /** The application's own shutdown hooks get SHUTDOWN_TIMEOUT_MS too, not more. */
  private async closeApplication(): Promise<void> {
    const { timeoutMs } = this.bounds;
    setTimeout(() => {
      this.logger.error(`Still closing ${timeoutMs} ms after the last connection: exiting anyway`);
      this.exit(1);
    }, timeoutMs).unref();
    await this.hooks.close();
    this.logger.log('Closed');
    this.exit(0);
  }
}
