import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { answerClientError } from './client-error.handler';

/**
 * Node's HTTP server answers a few requests by itself, with a bare status line and no body. Here
 * every such answer gets the API's error body instead: requests its parser refuses go to
 * `answerClientError`; an HTTP/1.1 request without Host goes on to `requireHostHeader` below; an
 * `Expect` other than 100-continue is ignored, as RFC 9110 §10.1.1 allows, instead of a bare 417.
 */
export function useApiErrorBodiesInServer(server: Server): void {
  server.on('clientError', answerClientError);
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
}

/** Express middleware: an HTTP/1.1 request without Host is a 400 (RFC 9112 §3.2), our body. */
export function requireHostHeader(
  request: IncomingMessage,
  _response: ServerResponse,
  next: (error?: unknown) => void,
): void {
  const http11 = request.httpVersionMajor === 1 && request.httpVersionMinor === 1;
  next(http11 && request.headers.host === undefined ? new BadRequestException() : undefined);
}

/**
 * Express middleware, ahead of the body parser: a request whose declared Content-Length is over
 * `limit` is refused with 413 at once, on its headers, and its connection closed after the answer
 * (`Connection: close`), so none of its body is read. (The body parser alone would read the whole
 * declared body before answering.) A chunked body that grows past `limit` is still refused by the
 * body parser.
 */
export function refuseDeclaredOversize(limit: number) {
  return (
    request: IncomingMessage,
    response: ServerResponse,
    next: (error?: unknown) => void,
  ): void => {
    const declared = Number(request.headers['content-length']);
    if (!(declared > limit)) return next();
    response.setHeader('Connection', 'close');
    next(new PayloadTooLargeException());
  };
}
