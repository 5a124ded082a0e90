import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  answerRecord,
  type IdentifiedRequest,
  identifyRequest,
  originForm,
} from '../common/answer-record';
import { OVER_CONNECTION_CAP_MESSAGE } from '../common/error-messages';
import { Connection, type Edge } from './connection';
import { answerOnSocket } from './socket-answers';

const OVER_CAP = { message: OVER_CONNECTION_CAP_MESSAGE, headers: { 'Retry-After': '1' } };
type Answered = (this: ServerResponse & { req: IdentifiedRequest }) => void;

/** The 'connection' listener: each socket gets its Connection, or is refused over its cap. */
export function admitConnections(edge: Edge, refusalTimeoutMs: number): (socket: Socket) => void {
  // One listener shared by every socket, not a closure per connection.
  function onSocketClose(this: Socket): void {
    edge.bySocket.get(this)?.closed();
  }
  return (socket) => {
    const connection = new Connection(socket, edge);
    const place = edge.cap.admit(socket);
    if (place === 'closed') return;
    connection.capPlace = place;
    // Over its client's cap: a 503 at its request, or after the refusal timeout if none comes.
    if (place !== undefined && !place.served) {
      connection.refuseOverCap(refusalTimeoutMs, () => answerOnSocket(connection, 503, OVER_CAP));
    }
    edge.connections.add(connection);
    socket.on('close', onSocketClose);
    // Every `Connection: close` answer on it ends with a lingering close: Node calls the
    // undocumented `destroySoon()` after one, and no event says so.
    socket.destroySoon = () => connection.lingeringClose();
  };
}

/** The 'request' listener: the application's `handlers` run only for the requests it admits. */
export function admitRequests(edge: Edge, handlers: RequestListener[]): RequestListener {
  const answered = answeredOn(edge);
  return (request, response) => {
    const connection = edge.bySocket.get(request.socket) ?? new Connection(request.socket, edge);
    // Behind an answer that closes the connection, or past the depth: neither handled nor counted.
    if (connection.closing) return;
    if (connection.waiting >= edge.MAX_PIPELINED_REQUESTS) {
      // Past it Node would hold a request and an answer for each one sent unread: the admitted
      // ones are answered, the rest dropped uncounted, then the connection lingers and closes.
      connection.stopAdmitting();
      connection.whenAllAnswered(() => connection.lingeringClose());
      return;
    }
    connection.arrived(request, response, performance.now());
    // Routing, a 404's message, the log and the metrics see an absolute-form target's path alone.
    if (request.url !== undefined) request.url = originForm(request.url);
    identifyRequest(request, response);
    response.on('close', answered);
    const arriving = connection.closeIfBodyStillArriving(request, response);
    if (edge.closeAnswers) connection.closeIfShutdownStillSays(request, response);
    if (refused(connection, response)) return;
    const chunkedArriving = arriving && request.headers['transfer-encoding'] !== undefined;
    if (connection.deferred > 0 || chunkedArriving) {
      connection.deferred += 1;
      setImmediate(() => handleOnceRead(connection, handlers, answered, request, response));
    } else for (const handle of handlers) handle(request, response);
  };
}

/** One 'close' listener shared by every response of the server, not a closure per request. */
const answeredOn = (edge: Edge): Answered =>
  function answered() {
    const connection = edge.bySocket.get(this.req.socket);
    if (connection === undefined) return;
    // A client that left before the status line was sent got no status at all.
    const status = this.headersSent ? this.statusCode : null;
    const elapsedMs = performance.now() - connection.arrivedAt(this.req);
    const record = answerRecord(this.req, status, this.writableFinished, elapsedMs);
    connection.answered(this.req);
    for (const observe of edge.observers) observe(record);
  };

/**
 * Once the read is parsed whole: a route answering at once would answer before the rest of a body
 * already read, and close an honest client's connection (closeIfBodyStillArriving).
 */
function handleOnceRead(
  connection: Connection,
  handlers: RequestListener[],
  answered: Answered,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  connection.deferred -= 1;
  if (request.socket.destroyed) return;
  // Its own answer has not been written yet: an answer that closes is an earlier request's.
  if (connection.answerCloses) {
    response.off('close', answered);
    connection.dropped(request);
  } else for (const handle of handlers) handle(request, response);
}

function refused(connection: Connection, response: ServerResponse): boolean {
  const { errors } = connection.edge;
  const request = response.req;
  if (connection.overCap()) {
    errors.send(response, 503, OVER_CAP.message, OVER_CAP.headers, true);
  } else if (request.httpVersionMajor !== 1 || request.httpVersionMinor > 1) {
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
