import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  answerError,
  answerOnSocket,
  type AnswerObserver,
  type AnswerRecord,
  type EdgeContext,
  setEdgeContext,
} from './answers';
import { answerClientError } from './client-error';
import { clientAddress } from './client-key';
import {
  capConnectionsPerClient,
  type ConnectionLimits,
  connectionCeiling,
  overCap,
  requestAnswered,
  requestArrived,
  isClosing,
  markClosing,
  nothingMoreToParse,
  requestsWaiting,
  whenAllAnswered,
} from './connections';
import { OVER_CONNECTION_CAP_MESSAGE } from './error-messages';
import {
  isLingering,
  type LingeringBounds,
  lingerOnClose,
  lingeringClose,
} from './lingering-close';
import { parseInSlices } from './read-slices';
import { type IdentifiedRequest, identifyRequest } from './request-id';

export interface EdgeOptions {
  limits: ConnectionLimits;
  lingering: LingeringBounds;
  bodyLimit: number;
  /** Headers of every error answer written at the edge (CORS, the JSON security set). */
  answerHeaders: ReadonlyArray<readonly [string, string]>;
  /** Told of every answer: the request log, the metrics. */
  observers: AnswerObserver[];
  /** Proxies TRUST_PROXY trusts: exempt from the per-client connection cap. */
  isTrustedProxy: (address: string) => boolean;
}

/** A server under the edge: its open connections, and whether it is shutting down. */
export interface Edge {
  readonly server: Server;
  readonly connections: ReadonlySet<Socket>;
  readonly lingering: LingeringBounds;
  /** From the shutdown signal on: every answer says `Connection: close`. */
  draining: boolean;
}

const EDGE = Symbol('edge');
/** A connection over the cap is told when to try again. */
const OVER_CAP_HEADERS = { 'Retry-After': '1' };
const ARRIVED = Symbol('arrivedAt');
type ObservedResponse = ServerResponse & { req: IdentifiedRequest; [ARRIVED]: number };

/** The answer's record for the observers, once its response has closed. */
function recordOf(response: ObservedResponse): AnswerRecord {
  const request = response.req as IdentifiedRequest & {
    originalUrl?: string;
    route?: unknown;
    ip?: string;
  };
  const url = request.originalUrl ?? request.url ?? '';
  const query = url.indexOf('?');
  return {
    method: request.method ?? '-',
    path: query === -1 ? url : url.slice(0, query),
    route: request.route,
    // A client that left before the status line was sent got no status at all.
    status: response.headersSent ? response.statusCode : null,
    completed: response.writableFinished,
    remoteAddress: clientAddress(request),
    requestId: request.id,
    elapsedMs: performance.now() - response[ARRIVED],
  };
}

/**
 * Puts `server` behind the edge: everything between the socket and the application (Express, or
 * the metrics server's handler), in one place (docs/operations.md, "Robustness").
 * - Connections: Node's ceiling for all clients, the per-client cap with its 503 answers, the
 *   header, request and keep-alive timeouts checked every second.
 * - Reads: handed to Node's parser a slice at a time, none once nothing more is to be parsed.
 * - Every answer: its request id, its observers (log, metrics), the pipelining depth, and after
 *   the shutdown signal `Connection: close`.
 * - Refusals are answers: Node's own bare answers (parser errors, timeouts, `Expect`) get the error
 *   body (answerClientError); every `Connection: close` answer ends with a lingering close.
 * The server's 'request' listeners (the application) run only for requests the edge admits.
 */
export function installEdge(server: Server, options: EdgeOptions): Edge {
  const { limits, lingering } = options;
  const context: EdgeContext = {
    answerHeaders: options.answerHeaders,
    observers: options.observers,
    lingering,
    bodyLimit: options.bodyLimit,
  };
  setEdgeContext(server, context);
  const connections = new Set<Socket>();
  const edge: Edge = { server, connections, lingering, draining: false };
  (server as Server & { [EDGE]?: Edge })[EDGE] = edge;

  server.maxConnections = connectionCeiling(limits.maxConnections);
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Read by Node when the server starts listening (a creation option it also takes as a property).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(1_000, limits.headersTimeoutMs);
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    lingerOnClose(socket, lingering);
    parseInSlices(socket, () => isLingering(socket) || nothingMoreToParse(socket));
  });
  capConnectionsPerClient(server, limits, options.isTrustedProxy, (socket) =>
    answerOnSocket(socket, 503, {
      message: OVER_CONNECTION_CAP_MESSAGE,
      headers: OVER_CAP_HEADERS,
    }),
  );

  server.on('clientError', answerClientError);
  // Node's own bare 400 for a request without Host is replaced by the edge's (below).
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // No `100 Continue` before the headers are judged: the body reader sends it when it reads.
  server.on('checkContinue', (request, response) => server.emit('request', request, response));
  // An `Expect` other than 100-continue is ignored, as RFC 9110 §10.1.1 allows, not a bare 417.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));

  const handlers = server.listeners('request') as Array<
    (request: IncomingMessage, response: ServerResponse) => void
  >;
  server.removeAllListeners('request');
  const done = function (this: ObservedResponse): void {
    const record = recordOf(this);
    requestAnswered(this);
    for (const observe of context.observers) observe(record);
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    // Behind an answer that closes the connection, or past the depth: neither handled nor counted.
    if (isClosing(socket)) return;
    if (requestsWaiting(socket) >= limits.maxPipelinedRequests) {
      stopReading(socket, lingering);
      return;
    }
    requestArrived(request);
    (response as ObservedResponse)[ARRIVED] = performance.now();
    identifyRequest(request, response);
    response.once('close', done);
    if (edge.draining) {
      response.setHeader('Connection', 'close');
      markClosing(socket);
    }
    if (overCap(socket)) {
      answerError(response, 503, OVER_CONNECTION_CAP_MESSAGE, OVER_CAP_HEADERS, true);
      return;
    }
    // Node's parser takes HTTP/0.9 (a request line without a version) and HTTP/2.0 as requests;
    // the edge speaks 1.0 and 1.1 only (RFC 9110 §15.6.6), and closes after saying so.
    if (!isHttp1(request)) {
      answerError(response, 505, undefined, {}, true);
      return;
    }
    // An HTTP/1.1 request without Host is malformed (RFC 9112 §3.2): a 400 with our body.
    if (request.headers.host === undefined && request.httpVersion === '1.1') {
      answerError(response, 400);
      return;
    }
    for (const handle of handlers) handle(request, response);
  });
  return edge;
}

const isHttp1 = (request: IncomingMessage): boolean =>
  request.httpVersionMajor === 1 &&
  (request.httpVersionMinor === 0 || request.httpVersionMinor === 1);

/** The edge installEdge put `server` behind (main.ts's shutdown takes it). */
export function edgeOf(server: Server): Edge {
  const edge = (server as Server & { [EDGE]?: Edge })[EDGE];
  if (edge === undefined) throw new Error('The server is not behind the edge (installEdge)');
  return edge;
}

/**
 * A client past the pipelining depth: Node would hold a request and an answer for each request it
 * sends without reading. The connection stops being read and parsed at once (what is left of the
 * read is dropped unparsed, parseInSlices); the requests it already had admitted are answered (a
 * request counted is a request answered), the rest are dropped unhandled and uncounted, and once
 * the last admitted answer is sent the connection ends with a lingering close.
 */
function stopReading(socket: Socket, lingering: LingeringBounds): void {
  markClosing(socket);
  whenAllAnswered(socket, () => lingeringClose(socket, lingering));
}
