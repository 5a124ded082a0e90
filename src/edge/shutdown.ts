import { Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptQueued } from './accept-queue';
import type { Edge } from './connection';
import { errorText } from '../common/error-text';
import { answerOnSocket } from './socket-answers';

/** net.Server's close(): http.Server's also ends idle keep-alive connections and timeout checks. */
export const closeListener = (server: Server, then: () => void): void =>
  void NetServer.prototype.close.call(server, then);

/**
 * SIGHUP and SIGUSR2 too: Node's default ends the process at once (no drain), their senders expect
 * an end (a closing terminal, nodemon), and nothing here could be reloaded.
 */
const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR2'];
const SWEEP_EVERY_MS = 100;
/** How long a connection holding no whole request must be silent before a 408 or a close. */
const QUIET_CLIENT_MS = 500;

export interface ShutdownHooks {
  /** Readiness is not decided here but by ShutdownState, which this sets. */
  onSignal: () => void;
  /** Once every connection has ended. */
  close: () => Promise<void>;
  /** Before every exit: the log's lines are written, or its own bound has passed. */
  flushed: () => Promise<void>;
}

/**
 * Not Node's `server.close()`: it closes idle keep-alive connections at once (a reset for a client
 * sending just then) and stops the timeout checks. Idle ones end at their keep-alive timeout; quiet
 * partial headers get a 408, and silent connections a lingering close.
 */
function stopListening(edge: Edge): Promise<void> {
  const closed = new Promise<void>((resolve) => closeListener(edge.server, resolve));
  const quietSince = new Map<Socket, { bytes: number; since: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const connection of edge.connections) {
      const { socket } = connection;
      if (connection.lingering) continue;
      const seen = quietSince.get(socket);
      if (seen === undefined || seen.bytes !== socket.bytesRead) {
        quietSince.set(socket, { bytes: socket.bytesRead, since: now });
        continue;
      }
      // Under load a request can wait in the kernel a while before the server reads it.
      if (now - seen.since < QUIET_CLIENT_MS) continue;
      const holds = connection.holds();
      if (holds === 'headers') answerOnSocket(connection, 408);
      else if (holds === 'nothing' && socket.bytesRead === 0) connection.lingeringClose();
    }
    for (const socket of quietSince.keys()) if (socket.destroyed) quietSince.delete(socket);
  }, SWEEP_EVERY_MS).unref();
  return closed.finally(() => clearInterval(sweep));
}

/** From now on the shutdown's answers close their connections, those already waiting too. */
function closeAnswersFromNow(edge: Edge): void {
  edge.closeAnswers = true;
  for (const connection of edge.connections) connection.closeWaitingAnswers();
}

/**
 * Drains, then closes the listener and the application without resetting a connection. Not Nest's
 * `enableShutdownHooks()`: it runs onModuleDestroy before the server stops, re-raising the signal.
 */
export function enableGracefulShutdown(edge: Edge, hooks: ShutdownHooks) {
  const shutdown = new Shutdown(edge, hooks);
  for (const signal of SIGNALS) process.on(signal, (received) => shutdown.start(received));
}

class Shutdown {
  private readonly logger = new Logger('Shutdown');
  private started = false;
  private exiting = false;

  constructor(
    private readonly edge: Edge,
    private readonly hooks: ShutdownHooks,
  ) {}

  start(signal: NodeJS.Signals): void {
    if (this.started) return;
    this.started = true;
    this.run(signal).catch((error: unknown) => {
      this.logger.error('Shutdown failed', errorText(error, 'stack'));
      this.exit(1);
    });
  }

  private async run(signal: NodeJS.Signals): Promise<void> {
    const { edge } = this;
    const { SHUTDOWN_DRAIN_DELAY_MS: drainDelayMs, SHUTDOWN_TIMEOUT_MS: timeoutMs } = edge;
    this.hooks.onSignal();
    this.logger.log(`${signal} received: not ready; no new connections in ${drainDelayMs} ms`);
    // Answers close their connections, so clients behind a load balancer move to other instances.
    if (drainDelayMs > 0) closeAnswersFromNow(edge);
    await sleep(drainDelayMs);
    // Keep-alive until the listener closes: a client reconnecting after every answer would always
    // have a connection in the kernel's queue, and closing the listener resets those.
    edge.closeAnswers = false;
    // SHUTDOWN_TIMEOUT_MS counts from here: the queue gets half at most, the last requests taken
    // have the rest.
    const deadline = setTimeout(() => this.closeLeftovers(signal, timeoutMs), timeoutMs).unref();
    await acceptQueued(edge.server, Date.now() + timeoutMs / 2);
    const closed = stopListening(edge);
    closeAnswersFromNow(edge);
    this.logger.log('No new connections: finishing the requests in flight');
    await closed;
    clearTimeout(deadline);
    await this.closeApplication();
  }

  /** Exit 1 only if a request is still being handled: idle or arriving ones are just closed. */
  private closeLeftovers(signal: NodeJS.Signals, timeoutMs: number): void {
    const open = [...this.edge.connections];
    if (open.some((connection) => connection.holds() === 'handled')) {
      this.logger.error(`Still busy ${timeoutMs} ms after ${signal}: exiting anyway`);
      this.exit(1);
      return;
    }
    this.logger.warn(`Closing ${open.length} connection(s) that never sent a whole request`);
    for (const connection of open) connection.socket.destroy();
  }

  /** The application's own shutdown hooks get SHUTDOWN_TIMEOUT_MS too. */
  private async closeApplication(): Promise<void> {
    const timeoutMs = this.edge.SHUTDOWN_TIMEOUT_MS;
    setTimeout(() => {
      this.logger.error(`Still closing ${timeoutMs} ms after the last connection: exiting anyway`);
      this.exit(1);
    }, timeoutMs).unref();
    await this.hooks.close();
    this.logger.log('Closed');
    this.exit(0);
  }

  /** The first exit wins: a forced exit still waiting for the log keeps its code. */
  private exit(code: number): void {
    if (this.exiting) return;
    this.exiting = true;
    void this.hooks.flushed().finally(() => process.exit(code));
  }
}
