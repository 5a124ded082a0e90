import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  answerRecord,
  type IdentifiedRequest,
  identifyRequest,
  originForm,
} from '../common/answer-record';
import { OVER_CONNECTION_CAP_MESSAGE } from '../common/error-messages';
import {
  closeIfBodyStillArriving,
  closeIfShutdownStillSays,
  Connection,
  connectionOf,
  type EdgeContext,
  lingeringClose,
  lingerOnClose,
} from './connection';
import type { Edge } from './shutdown';
import { answerOnSocket } from './socket-answers';

const OVER_CAP_HEADERS = { 'Retry-After': '1' };
export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** The 'connection' listener: each socket gets its Connection, or is refused over its cap. */
export const admitConnections =
  (context: EdgeContext, refusalTimeoutMs: number) =>
  (socket: Socket): void => {
    const connection = new Connection(socket, context);
    if (!admitConnection(connection, refusalTimeoutMs)) return;
    context.connections.add(socket);
    socket.on('close', onSocketClose);
    lingerOnClose(socket, context.lingering);
  };

/** The 'request' listener: the application's `handlers` run only for the requests it admits. */
export function admitRequests(
  edge: Edge,
  context: EdgeContext,
  handlers: Handler[],
  depth: number,
): Handler {
  const bodyLimit = context.errors.settings.bodyLimit;
  return (request, response) => {
    const connection = connectionOf(request.socket) ?? new Connection(request.socket, context);
    // Behind an answer that closes the connection, or past the depth: neither handled nor counted.
    if (connection.closing) return;
    if (connection.waiting >= depth) {
      stopReading(connection);
      return;
    }
    connection.arrived(request, response, performance.now());
    toOriginForm(request);
    identifyRequest(request, response);
    response.on('close', answered);
    const arriving = closeIfBodyStillArriving(request, response, bodyLimit);
    if (edge.closeAnswers) closeIfShutdownStillSays(edge, connection, request, response);
    if (refused(request, response, connection)) return;
    if (
      connection.deferred > 0 ||
      (arriving && request.headers['transfer-encoding'] !== undefined)
    ) {
      connection.deferred += 1;
      setImmediate(() => handleOnceRead(connection, handlers, request, response));
    } else for (const handle of handlers) handle(request, response);
  };
}

/** Over its client's cap: a 503 at its request, or after the refusal timeout if none comes. */
function admitConnection(connection: Connection, refusalTimeoutMs: number): boolean {
  const place = connection.context.cap.admit(connection.socket);
  if (place === 'closed') return false;
  connection.capPlace = place;
  if (place !== undefined && !place.served) {
    connection.refuseOverCap(refusalTimeoutMs, () =>
      answerOnSocket(connection.socket, 503, {
        message: OVER_CONNECTION_CAP_MESSAGE,
        headers: OVER_CAP_HEADERS,
      }),
    );
  }
  return true;
}

/** One listener shared by every socket, not a closure per connection. */
function onSocketClose(this: Socket): void {
  connectionOf(this)?.closed();
}

function answered(this: ServerResponse & { req: IdentifiedRequest }): void {
  const connection = connectionOf(this.req.socket);
  if (connection === undefined) return;
  // A client that left before the status line was sent got no status at all.
  const status = this.headersSent ? this.statusCode : null;
  const elapsedMs = performance.now() - connection.arrivedAt(this.req);
  const record = answerRecord(this.req, status, this.writableFinished, elapsedMs);
  connection.answered(this.req);
  for (const observe of connection.context.observers) observe(record);
}

/**
 * Handles a request whose chunked body is still arriving, and those behind it, once its read is
 * parsed whole: else a route answering at once would answer before the rest of a body already read,
 * and close an honest client's connection (closeIfBodyStillArriving).
 */
function handleOnceRead(
  connection: Connection,
  handlers: Handler[],
  request: IncomingMessage,
  response: ServerResponse,
): void {
  connection.deferred -= 1;
  if (request.socket.destroyed) return;
  // Its own answer has not been written yet: an answer that closes is an earlier request's.
  if (connection.answerCloses) {
    response.off('close', answered);
    connection.dropped(request);
    return;
  }
  for (const handle of handlers) handle(request, response);
}

function refused(
  request: IncomingMessage,
  response: ServerResponse,
  connection: Connection,
): boolean {
  const { errors } = connection.context;
  if (connection.overCap()) {
    errors.send(response, 503, OVER_CONNECTION_CAP_MESSAGE, OVER_CAP_HEADERS, true);
  } else if (!isHttp1(request)) {
    // Node's parser takes HTTP/0.9 (a request line without a version) and HTTP/2.0 as requests;
    // the edge speaks 1.0 and 1.1 only (RFC 9110 §15.6.6), and closes after saying so.
    errors.send(response, 505, undefined, {}, true);
  } else if (
    hostLines(request) > 1 ||
    (request.headers.host === undefined && request.httpVersion === '1.1')
  ) {
    // More than one Host line, or none in HTTP/1.1, is malformed (RFC 9112 §3.2): a 400 with our
    // body. Node keeps the first of several Host lines in `headers`, so they are counted raw.
    errors.send(response, 400);
  } else return false;
  return true;
}

function hostLines(request: IncomingMessage): number {
  const raw = request.rawHeaders;
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') lines += 1;
  }
  return lines;
}

/** Routing, a 404's message, the log and the metrics see an absolute-form target's path alone. */
function toOriginForm(request: IncomingMessage): void {
  const url = request.url;
  if (url !== undefined && url.charCodeAt(0) !== 0x2f) request.url = originForm(url);
}

const isHttp1 = (request: IncomingMessage): boolean =>
  request.httpVersionMajor === 1 &&
  (request.httpVersionMinor === 0 || request.httpVersionMinor === 1);

/**
 * Past the pipelining depth Node would hold a request and an answer for each one sent unread: the
 * admitted ones are answered, the rest dropped uncounted, then the connection lingers and closes.
 */
function stopReading(connection: Connection): void {
  connection.stopAdmitting();
  connection.whenAllAnswered(() => lingeringClose(connection.socket, connection.context.lingering));
}
