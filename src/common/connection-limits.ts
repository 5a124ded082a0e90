import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { clientKey } from '../rate-limit/client-key';
import { requestsWaiting, trackConnections } from './connection-tracker';

/** The limits one HTTP server holds its connections to (docs/operations.md, "Robustness"). */
export interface ConnectionLimits {
  /** Connections open at once, all clients together; 0: 90 % of the descriptor limit. */
  maxConnections: number;
  /** Connections open at once from one client address (an IPv6 /64). */
  maxConnectionsPerClient: number;
  /** Requests one connection may have waiting for their answers (pipelining depth). */
  maxPipelinedRequests: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** The soft limit on this process's open file descriptors (Linux), or undefined. */
function descriptorLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connection ceiling: the configured one, else 90 % of the descriptor limit (the rest is left
 * for files, Redis and the logs), so the process never runs out of descriptors and can still accept
 * and close what comes over it.
 */
export function connectionCeiling(configured: number): number {
  if (configured > 0) return configured;
  const descriptors = descriptorLimit();
  return descriptors === undefined ? 10_000 : Math.max(16, Math.floor(descriptors * 0.9));
}

/**
 * Holds `server` to `limits`: Node's own ceiling (`maxConnections`, connections over it are closed
 * at once), a per-client ceiling (a connection over it is closed at once, before anything is read;
 * proxies `isTrustedProxy` names are exempt, every request comes through them), and timeouts that
 * suit a small JSON API, checked every second rather than Node's 30 s.
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  isTrustedProxy: (address: string) => boolean,
): void {
  trackConnections(server);
  server.maxConnections = connectionCeiling(limits.maxConnections);
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Read by Node when the server starts listening (a creation option it also takes as a property).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(1_000, limits.headersTimeoutMs);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || isTrustedProxy(address)) return;
    // The same client as the daily limit's: an IPv6 /64 is one client.
    const client = clientKey({ ip: undefined, socket });
    const count = (open.get(client) ?? 0) + 1;
    if (count > limits.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    open.set(client, count);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}

/**
 * Express middleware, mounted first: a connection may have at most `max` requests waiting for
 * their answers (counted by the connection tracker). Node parses every request in what it has read
 * and queues their answers, so a client that pipelines thousands of requests and never reads would
 * make the server hold them all; one that passes the depth is closed instead, and what it had
 * queued is dropped.
 */
export function limitPipelining(max: number) {
  return (request: IncomingMessage, _response: ServerResponse, next: () => void): void => {
    const socket = request.socket;
    if (socket.destroyed) return;
    if (requestsWaiting(socket) > max) {
      socket.destroy();
      return;
    }
    next();
  };
}
