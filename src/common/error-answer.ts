import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorAnswerBody, JSON_CONTENT_TYPE } from './error-body';
import { declaresOver, hasBody } from './request-body';

interface ErrorAnswerSettings {
  /** CORS (so a page can read the answer) and the JSON security set. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** A refusal keeps the connection only when what is left of the body is within it. */
  bodyLimit: number;
}

let settings: ErrorAnswerSettings = { headers: [], bodyLimit: 0 };
/** The edge's hook: nothing pipelined after an answer that closes is handled. */
let closingHook: (socket: Socket) => void = () => undefined;

export function configureErrorAnswers(configured: ErrorAnswerSettings): void {
  settings = configured;
}

export function onClosingAnswer(hook: (socket: Socket) => void): void {
  closingHook = hook;
}

/** No body in an answer to HEAD (RFC 9110 §9.3.2). */
export const bodyFor = <T>(method: string | undefined, body: T): T | undefined =>
  method === 'HEAD' ? undefined : body;

/**
 * The client may still be sending a body the server will not read, unless the rest is declared and
 * small enough for Node to read and drop (`req._dump()`), keeping the connection.
 */
export function answerCloses(request: IncomingMessage, bodyLimit: number): boolean {
  if (request.complete || !hasBody(request)) return false;
  return declaresOver(request, bodyLimit) || request.headers['transfer-encoding'] !== undefined;
}

/** A response, or the header lines of an answer written on a socket. */
export interface HeaderTarget {
  hasHeader(name: string): boolean;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
}

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
 * The one writer of the error body (docs/contract.md, "Errors"). An answer sent while the body may
 * still arrive closes with a lingering close, so the client reads it rather than a reset. A
 * response already answered is left as it is: one request, one answer.
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
