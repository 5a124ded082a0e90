import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorAnswerBody, JSON_CONTENT_TYPE } from './error-body';
import { declaresOver, hasBody } from './request-body';

/** What every error answer is written with, set once by the assembly (configureErrorAnswers). */
interface ErrorAnswerSettings {
  /** Headers every error answer carries: CORS (so a page can read it), the JSON security set. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** The body limit: a refusal keeps the connection only when what is left of the body is within it. */
  bodyLimit: number;
}

let settings: ErrorAnswerSettings = { headers: [], bodyLimit: 0 };
/** Told of every connection an answer will close (the edge: nothing after it is handled). */
let closingHook: (socket: Socket) => void = () => undefined;

/** Sets the headers and the body limit of every error answer (app.setup.ts). */
export function configureErrorAnswers(configured: ErrorAnswerSettings): void {
  settings = configured;
}

/** Sets what is told of a connection an error answer will close (installEdge). */
export function onClosingAnswer(hook: (socket: Socket) => void): void {
  closingHook = hook;
}

/** The body an answer to `method` sends: none to a HEAD request (RFC 9110 §9.3.2). */
export const bodyFor = <T>(method: string | undefined, body: T): T | undefined =>
  method === 'HEAD' ? undefined : body;

/**
 * Whether an answer to `request` must close its connection: the client may still be sending a
 * body the server will not read, unless what is left of it is declared and small enough to read
 * and drop, keeping the connection (Node then reads it through `req._dump()`).
 */
export function answerCloses(request: IncomingMessage, bodyLimit: number): boolean {
  if (request.complete || !hasBody(request)) return false;
  return declaresOver(request, bodyLimit) || request.headers['transfer-encoding'] !== undefined;
}

/** Where error headers go: a response, or the header lines of an answer written on a socket. */
export interface HeaderTarget {
  hasHeader(name: string): boolean;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
}

/**
 * The headers of every error answer: the configured ones (CORS, the JSON security set) unless
 * already set, `headers` (overriding), `Connection: close` when it closes, the type and the
 * body's length.
 */
export function setErrorHeaders(
  target: HeaderTarget,
  headers: OutgoingHttpHeaders,
  close: boolean,
  bodyLength: number,
): void {
  for (const [name, value] of settings.headers) {
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
 * reads it rather than a reset; what the client pipelined after it is not handled (the closing
 * hook tells the edge). Logged and counted by the response's observers (installEdge). A response
 * already answered is left as it is: one request, one answer.
 */
export function answerError(
  response: ServerResponse,
  status: number,
  message?: string,
  headers: OutgoingHttpHeaders = {},
  close = false,
): void {
  if (response.headersSent || response.writableEnded) return;
  const closes = close || answerCloses(response.req, settings.bodyLimit);
  if (closes && response.socket) closingHook(response.socket);
  const body = errorAnswerBody(status, message);
  setErrorHeaders(response, headers, closes, body.byteLength);
  response.statusCode = status;
  response.end(bodyFor(response.req.method, body.text));
}
