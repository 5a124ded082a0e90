import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AnswerObserver } from '../common/answer-record';
import { markClosing } from './connections';
import { errorAnswerBody, JSON_CONTENT_TYPE } from '../common/error-body';
import { declaresOver, hasBody } from '../common/request-body';
import { beforeHead, serverOf } from './internals';
import type { LingeringBounds } from './lingering-close';

/** What the edge of one server knows when it writes an answer (set by installEdge). */
export interface EdgeContext {
  /** Headers every error answer carries: CORS (so a page can read it), the JSON security set. */
  answerHeaders: ReadonlyArray<readonly [string, string]>;
  observers: AnswerObserver[];
  lingering: LingeringBounds;
  /** The body limit: a refusal keeps the connection only when what is left of the body is within it. */
  bodyLimit: number;
}

const CONTEXT = Symbol('edgeContext');
type ContextServer = Server & { [CONTEXT]?: EdgeContext };

export function setEdgeContext(server: Server, context: EdgeContext): void {
  (server as ContextServer)[CONTEXT] = context;
}

export function edgeContextOf(socket: Socket | null | undefined): EdgeContext | undefined {
  const server: ContextServer | undefined = socket ? serverOf(socket) : undefined;
  return server?.[CONTEXT];
}

/** The body an answer to `method` sends: none to a HEAD request (RFC 9110 §9.3.2). */
export const bodyFor = <T>(method: string | undefined, body: T): T | undefined =>
  method === 'HEAD' ? undefined : body;

/**
 * Whether an answer to `request` must close its connection: the client may still be sending a
 * body the server will not read, unless what is left of it is declared and small enough to read
 * and drop, keeping the connection (Node then reads it through `req._dump()`).
 */
function answerCloses(request: IncomingMessage, bodyLimit: number): boolean {
  if (request.complete || !hasBody(request)) return false;
  return declaresOver(request, bodyLimit) || request.headers['transfer-encoding'] !== undefined;
}

/**
 * Makes any answer to `request` (a 2xx as much as an error: a preflight, a health check, a page or
 * a file whose route reads no body) close its connection when the body is still arriving as the
 * answer's head goes out and would not be read and dropped whole (answerCloses): `Connection:
 * close`, then the lingering close, which reads at most the body limit more. Without it Node reads
 * and drops the rest of the body after the answer to keep the connection, however long it is (an
 * endless chunked body: gigabytes, until the request timeout). A body that has arrived by then, or
 * whose declared rest is within the limit, keeps the connection.
 */
export function closeIfBodyStillArriving(
  request: IncomingMessage,
  response: ServerResponse,
  bodyLimit: number,
): void {
  if (!answerCloses(request, bodyLimit)) return;
  beforeHead(response, () => {
    if (response.headersSent || !answerCloses(request, bodyLimit)) return;
    response.setHeader('Connection', 'close');
    markClosing(request.socket);
  });
}

/** Where error headers go: a response, or the header lines of an answer written on a socket. */
export interface HeaderTarget {
  hasHeader(name: string): boolean;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
}

/**
 * The headers of every error answer: the edge's (CORS, the JSON security set) unless already set,
 * `headers` (overriding), `Connection: close` when it closes, the type and the body's length.
 */
export function setErrorHeaders(
  target: HeaderTarget,
  context: EdgeContext | undefined,
  headers: OutgoingHttpHeaders,
  close: boolean,
  bodyLength: number,
): void {
  for (const [name, value] of context?.answerHeaders ?? []) {
    if (!target.hasHeader(name)) target.setHeader(name, value);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) target.setHeader(name, value);
  }
  if (close) target.setHeader('Connection', 'close');
  target.setHeader('Content-Type', JSON_CONTENT_TYPE);
  target.setHeader('Content-Length', bodyLength);
}

/**
 * The one writer of the error body `{statusCode, message}` (docs/contract.md, "Errors"): the
 * exception filter's answers and the edge's own (early 429, 413, 503 over the connection cap, 400
 * without Host) all go through it. Headers already set (rate-limit headers, Retry-After, the
 * request id) stay; `headers` adds more. An answer sent while the client may still be sending a
 * body (or with `close`) says `Connection: close` and ends with a lingering close, so the client
 * reads it rather than a reset; what the client pipelined after it is not handled. Logged and
 * counted by the response's observers (installEdge). A response already answered is left as it
 * is: one request, one answer.
 */
export function answerError(
  response: ServerResponse,
  status: number,
  message?: string,
  headers: OutgoingHttpHeaders = {},
  close = false,
): void {
  if (response.headersSent || response.writableEnded) return;
  const context = edgeContextOf(response.socket);
  const closes = close || answerCloses(response.req, context?.bodyLimit ?? 0);
  if (closes && response.socket) markClosing(response.socket);
  const body = errorAnswerBody(status, message);
  setErrorHeaders(response, context, headers, closes, body.byteLength);
  response.statusCode = status;
  response.end(bodyFor(response.req.method, body.text));
}
