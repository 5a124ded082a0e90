import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './error-body';

/** Bodies above this get a 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

/** Whether a request declares a body at all (RFC 9112 §6.3: a length or a transfer coding). */
export const hasBody = (request: IncomingMessage): boolean =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/** Whether `request` declares a Content-Length over BODY_LIMIT_BYTES (refused unread). */
export const declaresOver = (request: IncomingMessage): boolean =>
  Number(request.headers['content-length']) > BODY_LIMIT_BYTES;

/**
 * The client may still be sending a body the server will not read, unless the rest is declared and
 * small enough for Node to read and drop (`req._dump()`), keeping the connection.
 */
export const responseCloses = (request: IncomingMessage): boolean =>
  !request.complete &&
  (request.headers['transfer-encoding'] !== undefined || declaresOver(request));

/** A response, or the header lines of a response written on a socket. */
interface HeaderTarget {
  hasHeader(name: string): boolean;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
}

/** A string: Node writes it in one write with the head, a Buffer in a second (costly on 429s). */
type ErrorBodyText = { text: string; byteLength: number };

/** Refusals repeat (a client over its limit): bodies are kept, but never a 404's (it names a path). */
const MAX_KEPT_BODIES = 64;

/**
 * The one writer of error responses (docs/contract.md, "Errors"): Nest's filter, the middlewares,
 * the edge. One sent while the body may still arrive closes lingering, so the client reads it.
 */
export class ErrorResponses {
  /** The edge's hook: nothing pipelined after a response that closes is handled. */
  onClosing: (socket: Socket) => void = () => undefined;
  private readonly bodies = new Map<string, ErrorBodyText>();

  /** `headers`: CORS (so a page can read the response) and the JSON security set. */
  constructor(private readonly headers: ReadonlyArray<readonly [string, string]>) {}

  /** Sends `{statusCode, message}`; a response already sent is left as it is. */
  send(
    response: ServerResponse,
    status: number,
    message?: string,
    headers: OutgoingHttpHeaders = {},
    close = false,
  ): void {
    if (response.headersSent || response.writableEnded) return;
    const closes = close || responseCloses(response.req);
    if (closes && response.socket) this.onClosing(response.socket);
    const body = this.body(status, message);
    this.setHeaders(response, headers, closes, body.byteLength);
    response.statusCode = status;
    // Node sends no body in a response to HEAD (RFC 9110 §9.3.2), whatever end() is given.
    response.end(body.text);
  }

  setHeaders(target: HeaderTarget, headers: OutgoingHttpHeaders, close: boolean, length: number) {
    for (const [name, value] of this.headers) {
      if (!target.hasHeader(name)) target.setHeader(name, value);
    }
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) target.setHeader(name, value);
    }
    if (close) target.setHeader('Connection', 'close');
    target.setHeader('Content-Type', 'application/json; charset=utf-8');
    target.setHeader('Content-Length', length);
  }

  body(status: number, message?: string): ErrorBodyText {
    const key = `${status} ${message ?? ''}`;
    const kept = this.bodies.get(key);
    if (kept !== undefined) return kept;
    const text = JSON.stringify(errorBody(status, message));
    const made = { text, byteLength: Buffer.byteLength(text) };
    if (status !== 404 && this.bodies.size < MAX_KEPT_BODIES) this.bodies.set(key, made);
    return made;
  }
}
