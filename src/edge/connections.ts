import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from '../common/client-key';

/** The limits one HTTP server holds its connections to (docs/operations.md, "Robustness"). */
export interface ConnectionLimits {
  /** Connections open at once, all clients together; 0: 90 % of the descriptor limit. */
  maxConnections: number;
  /** Connections open at once from one client address (an IPv6 /64). */
  maxConnectionsPerClient: number;
  /** Connections past that per-client cap still answered 503 (the rest are closed at accept). */
  connectionRefusalsPerClient: number;
  /** How long such a connection may take to send a request's headers before its 503 anyway. */
  connectionRefusalTimeoutMs: number;
  /** Requests one connection may have waiting for their answers (pipelining depth). */
  maxPipelinedRequests: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

const WAITING = Symbol('requestsWaiting');
const CURRENT = Symbol('currentRequest');
const READ_AT_ANSWER = Symbol('bytesReadAtLastAnswer');
const OVER_CAP = Symbol('overCap');
const WHEN_ANSWERED = Symbol('whenAllAnswered');
const LAST_ANSWERED = Symbol('lastAnswered');
const CLOSING = Symbol('closing');

/** A connection the edge follows: its requests waiting for answers, the latest one, the cap. */
type TrackedSocket = Socket & {
  [WAITING]?: number;
  [CURRENT]?: IncomingMessage;
  [LAST_ANSWERED]?: IncomingMessage;
  /** An answer on it closes the connection: requests after it are neither handled nor counted. */
  [CLOSING]?: true;
  [READ_AT_ANSWER]?: number;
  /** Over the per-client cap: its request is answered 503 (the timer answers if none comes). */
  [OVER_CAP]?: NodeJS.Timeout;
  [WHEN_ANSWERED]?: () => void;
};

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
 * for files, Redis and the logs), so the process never runs out of descriptors. Past it Node
 * closes a connection at accept: the only connection closed without an answer.
 */
export function connectionCeiling(configured: number): number {
  if (configured > 0) return configured;
  const descriptors = descriptorLimit();
  return descriptors === undefined ? 10_000 : Math.max(16, Math.floor(descriptors * 0.9));
}

/**
 * Counts each client's open connections. Within `maxConnectionsPerClient` a connection is served;
 * past it, up to `connectionRefusalsPerClient` more are answered 503 (`overCap` tells; their
 * request is not handled, so not counted against the daily limit), each given
 * `connectionRefusalTimeoutMs` to send its headers before `onSilent` answers it anyway; further
 * ones are closed at accept, so the cap still bounds the descriptors one client holds. Proxies
 * `isTrustedProxy` names are exempt: every request comes through them.
 */
export function capConnectionsPerClient(
  server: Server,
  limits: ConnectionLimits,
  isTrustedProxy: (address: string) => boolean,
  onSilent: (socket: Socket) => void,
): void {
  const open = new Map<string, { served: number; refused: number }>();
  server.on('connection', (socket: TrackedSocket) => {
    const address = socket.remoteAddress;
    if (address === undefined || isTrustedProxy(address)) return;
    // The same client as the daily limit's: an IPv6 /64 is one client.
    const client = clientKey({ ip: undefined, socket });
    const counts = open.get(client) ?? { served: 0, refused: 0 };
    const served = counts.served < limits.maxConnectionsPerClient;
    if (!served && counts.refused >= limits.connectionRefusalsPerClient) {
      socket.destroy();
      return;
    }
    if (served) counts.served += 1;
    else {
      counts.refused += 1;
      socket[OVER_CAP] = setTimeout(() => onSilent(socket), limits.connectionRefusalTimeoutMs);
      socket[OVER_CAP].unref();
    }
    open.set(client, counts);
    socket.once('close', () => {
      clearTimeout(socket[OVER_CAP]);
      if (served) counts.served -= 1;
      else counts.refused -= 1;
      if (counts.served === 0 && counts.refused === 0) open.delete(client);
    });
  });
}

/** Whether `socket` is a connection over its client's cap; its timer stops (a request came). */
export function overCap(socket: Socket): boolean {
  const timer = (socket as TrackedSocket)[OVER_CAP];
  if (timer === undefined) return false;
  clearTimeout(timer);
  return true;
}

/** A request starts on its connection: one more waiting for its answer. */
export function requestArrived(request: IncomingMessage): void {
  const socket = request.socket as TrackedSocket;
  socket[WAITING] = (socket[WAITING] ?? 0) + 1;
  socket[CURRENT] = request;
}

/** Its answer is done (`response` closed): one fewer waiting. Answers how many still wait. */
export function requestAnswered(response: ServerResponse): number {
  const socket = response.req.socket as TrackedSocket;
  socket[WAITING] = (socket[WAITING] ?? 1) - 1;
  socket[READ_AT_ANSWER] = socket.bytesRead;
  // Kept only while its body still arrives: a whole request (and its answer, through Express's
  // req.res) must not outlive its answer, or each one survives the young generation's collections.
  socket[LAST_ANSWERED] = response.req.complete ? undefined : response.req;
  if (socket[CURRENT] === response.req) socket[CURRENT] = undefined;
  const then = socket[WAITING] === 0 ? socket[WHEN_ANSWERED] : undefined;
  if (then !== undefined) {
    socket[WHEN_ANSWERED] = undefined;
    then();
  }
  return socket[WAITING];
}

/**
 * Runs `then` once every request `socket` has waiting is answered (at once if none is), and stops
 * reading the connection meanwhile: what comes after is not for the application (a request past
 * the pipelining depth, bytes the parser refused).
 */
export function whenAllAnswered(socket: Socket, then: () => void): void {
  socket.pause();
  if (requestsWaiting(socket) === 0) then();
  else (socket as TrackedSocket)[WHEN_ANSWERED] = then;
}

/** Requests on `socket` that have arrived and not yet been answered. */
export const requestsWaiting = (socket: Socket): number => (socket as TrackedSocket)[WAITING] ?? 0;

/** Whether the last request answered on `socket` is still sending its body (answered early). */
export const answeredStillArriving = (socket: Socket): boolean =>
  (socket as TrackedSocket)[LAST_ANSWERED]?.complete === false;

/** An answer on `socket` will close it: what the client pipelined after it is not handled. */
export function markClosing(socket: Socket): void {
  (socket as TrackedSocket)[CLOSING] = true;
}

export const isClosing = (socket: Socket): boolean => (socket as TrackedSocket)[CLOSING] === true;

/**
 * Whether nothing more `socket` sends is for the application: an answer on it will close it, and
 * no request it admitted is still arriving (a request admitted while shutting down still needs its
 * body).
 */
export function nothingMoreToParse(socket: Socket): boolean {
  const tracked = socket as TrackedSocket;
  return tracked[CLOSING] === true && tracked[CURRENT]?.complete !== false;
}

/**
 * What a connection holds: nothing at all (idle, or new and silent), the start of a request whose
 * headers are not whole yet, a request whose body is still arriving, or one being handled.
 */
export function connectionHolds(socket: Socket): 'nothing' | 'headers' | 'arriving' | 'handled' {
  const tracked = socket as TrackedSocket;
  const request = tracked[CURRENT];
  // Requests before the latest one were read whole: with two waiting, one is being handled.
  if ((tracked[WAITING] ?? 0) > 1) return 'handled';
  if (request !== undefined) return request.complete ? 'handled' : 'arriving';
  return socket.bytesRead > (tracked[READ_AT_ANSWER] ?? 0) ? 'headers' : 'nothing';
}
