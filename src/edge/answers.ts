import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { METHODS, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { toErrorBody } from './error-body';
import {
  answeredStillArriving,
  isClosing,
  markClosing,
  requestsWaiting,
  whenAllAnswered,
} from './connections';
import { isLingering, type LingeringBounds, lingeringClose } from './lingering-close';

/** The Content-Type of every JSON answer. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** One answer as the request log and the metrics see it, whoever wrote it. */
export interface AnswerRecord {
  method: string;
  /** The path without its query string (a query may carry tokens; a log line never does). */
  path: string;
  /** Express's matched route, when a route handled it (metrics label it with its pattern). */
  route?: unknown;
  /** The status sent; null when the client left before a status line was sent. */
  status: number | null;
  /** Whether the whole answer was handed to the socket (else the client left first). */
  completed: boolean;
  remoteAddress?: string;
  requestId?: string;
  /** From the request's arrival to the end of its answer. */
  elapsedMs: number;
}

/** Told once per answer: the request log, the metrics. */
export type AnswerObserver = (answer: AnswerRecord) => void;

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

export function setEdgeContext(server: Server, context: EdgeContext): void {
  (server as Server & { [CONTEXT]?: EdgeContext })[CONTEXT] = context;
}

/** A server's socket: Node sets `server` on every connection it accepts. */
type ServedSocket = Socket & { server?: { [CONTEXT]?: EdgeContext } };

function edgeContextOf(socket: ServedSocket | null | undefined): EdgeContext | undefined {
  return socket?.server?.[CONTEXT];
}

/** Bodies already made, by status and message: refusals repeat (a client over its limit, 429s). */
const BODIES = new Map<string, Buffer>();
/** Past this many bodies, new ones are made, not kept; a 404's, which names its path, never is. */
const MAX_KEPT_BODIES = 64;

/** The error body for `status` as bytes: the contract's message unless one is given. */
function errorBytes(status: number, message?: string): Buffer {
  const key = `${status} ${message ?? ''}`;
  const kept = BODIES.get(key);
  if (kept !== undefined) return kept;
  const body = toErrorBody(new HttpException(message ?? STATUS_CODES[status] ?? '', status));
  const bytes = Buffer.from(JSON.stringify({ statusCode: body.statusCode, message: body.message }));
  if (status !== 404 && BODIES.size < MAX_KEPT_BODIES) BODIES.set(key, bytes);
  return bytes;
}

/** Whether a request declares a body at all (RFC 9112 §6.3: a length or a transfer coding). */
export const hasBody = (request: IncomingMessage): boolean =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/**
 * Whether an answer to `request` must close its connection: the client may still be sending a
 * body the server will not read, unless what is left of it is declared and small enough to read
 * and drop, keeping the connection (Node then reads it through `req._dump()`).
 */
function answerCloses(request: IncomingMessage, bodyLimit: number): boolean {
  if (request.complete || !hasBody(request)) return false;
  const declared = Number(request.headers['content-length']);
  return !(declared <= bodyLimit) || request.headers['transfer-encoding'] !== undefined;
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
  for (const [name, value] of context?.answerHeaders ?? []) {
    if (!response.hasHeader(name)) response.setHeader(name, value);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) response.setHeader(name, value);
  }
  if (close || answerCloses(response.req, context?.bodyLimit ?? 0)) {
    response.setHeader('Connection', 'close');
    if (response.socket) markClosing(response.socket);
  }
  const body = errorBytes(status, message);
  response.statusCode = status;
  response.setHeader('Content-Type', JSON_CONTENT_TYPE);
  response.setHeader('Content-Length', body.length);
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/**
 * `GET /x` of a request line Node's parser refused, for the log and the metrics: a method Node
 * knows, else `-` (a metric label must not take whatever a client sends), and the path cut short.
 */
function requestLineOf(packet: Buffer | undefined): { method: string; path: string } {
  const line = packet?.subarray(0, packet.indexOf('\r\n') >>> 0).toString('latin1') ?? '';
  const [method = '', target = '-'] = line.split(' ');
  return {
    method: METHODS.includes(method) ? method : '-',
    path: target.split('?')[0].slice(0, 256),
  };
}

/**
 * An error answer on a connection that has no response object to write it with: Node's parser
 * refused what arrived (400, 413, 431), the request timed out before its headers were whole
 * (408), or a connection over the cap sent nothing in time (503). The same body and headers as
 * `answerError`, a new request id, `Connection: close`, then a lingering close; logged and counted
 * here. A request whose body was still arriving takes the answer on its own response (so it is
 * logged once, with this status); whole requests still being answered (pipelined before what went
 * wrong) are answered first.
 */
export function answerOnSocket(
  socket: Socket,
  status: number,
  options: { packet?: Buffer; message?: string; headers?: Record<string, string> } = {},
): void {
  // Already closing after an answer: its own bounds end it.
  if (isLingering(socket)) return;
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  const context = edgeContextOf(socket);
  if (inFlight && !inFlight.req.complete) {
    // The request whose body was arriving takes the answer; one it already has closes by itself.
    if (!inFlight.headersSent)
      answerError(inFlight, status, options.message, options.headers, true);
    else if (!inFlight.writableEnded || !isClosing(socket)) socket.destroy();
    return;
  }
  if (context === undefined) {
    socket.destroy();
    return;
  }
  // The body of a request already answered (early, keeping the connection) stopped arriving: it
  // had its answer; the connection just closes.
  if (!inFlight && answeredStillArriving(socket)) {
    lingeringClose(socket, context.lingering);
    return;
  }
  // What went wrong came after whole requests still being answered (pipelined): they are
  // answered first, in order, then this.
  if (requestsWaiting(socket) > 0) {
    whenAllAnswered(socket, () => writeOnSocket(socket, status, context, options));
    return;
  }
  writeOnSocket(socket, status, context, options);
}

function writeOnSocket(
  socket: Socket,
  status: number,
  context: EdgeContext,
  {
    packet,
    message,
    headers = {},
  }: { packet?: Buffer; message?: string; headers?: Record<string, string> },
): void {
  if (isLingering(socket)) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const { method, path } = requestLineOf(packet);
  const body = errorBytes(status, message);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: ${JSON_CONTENT_TYPE}`,
    `Content-Length: ${body.length}`,
    `X-Request-Id: ${requestId}`,
    ...context.answerHeaders.map(([name, value]) => `${name}: ${value}`),
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (method !== 'HEAD') socket.write(body);
  lingeringClose(socket, context.lingering);
  const answer: AnswerRecord = {
    method,
    path,
    status,
    completed: true,
    remoteAddress: socket.remoteAddress,
    requestId,
    elapsedMs: 0,
  };
  for (const observe of context.observers) observe(answer);
}
