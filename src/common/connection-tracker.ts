import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const WAITING = Symbol('requestsWaiting');
const CURRENT = Symbol('currentRequest');
const STARTED = Symbol('currentRequestStarted');
const TRACKED = Symbol('trackedConnections');

/** A connection the tracker follows: the requests waiting for answers, and the latest one. */
export type TrackedSocket = Socket & {
  [WAITING]?: number;
  [CURRENT]?: IncomingMessage;
  [STARTED]?: number;
};

/** One function for every answer (`this` is the response): no closure per request. */
function answered(this: ServerResponse): void {
  const socket = this.req.socket as TrackedSocket;
  socket[WAITING] = (socket[WAITING] ?? 1) - 1;
  if (socket[CURRENT] === this.req) socket[CURRENT] = undefined;
}

/**
 * Every open connection of `server`, and on each the requests still waiting for their answers:
 * one listener per connection and one shared listener per answer, ahead of the application's.
 * The pipelining depth (connection-limits.ts) and the shutdown (graceful-shutdown.ts) read it;
 * set up once per server, whoever asks first.
 */
export function trackConnections(server: Server): Set<TrackedSocket> {
  const tracked = server as Server & { [TRACKED]?: Set<TrackedSocket> };
  if (tracked[TRACKED]) return tracked[TRACKED];
  const open = new Set<TrackedSocket>();
  tracked[TRACKED] = open;
  server.on('connection', (socket: TrackedSocket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket as TrackedSocket;
    socket[WAITING] = (socket[WAITING] ?? 0) + 1;
    socket[CURRENT] = request;
    socket[STARTED] = Date.now();
    response.once('close', answered);
  });
  return open;
}

/** Requests on `socket` that have arrived and not yet been answered. */
export const requestsWaiting = (socket: Socket): number => (socket as TrackedSocket)[WAITING] ?? 0;

/** When the latest request on `socket` arrived (epoch ms). */
export const requestStartedAt = (socket: Socket): number | undefined =>
  (socket as TrackedSocket)[STARTED];

/** What a connection holds: nothing of a request, a request still arriving, or one being handled. */
export function connectionHolds(socket: Socket): 'nothing' | 'arriving' | 'handled' {
  const request = (socket as TrackedSocket)[CURRENT];
  if (request === undefined) return 'nothing';
  return request.complete ? 'handled' : 'arriving';
}
