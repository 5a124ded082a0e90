import { BadRequestException } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerError } from './answers';

/** A `charset` parameter other than UTF-8 (JSON between systems is UTF-8: RFC 8259, section 8.1). */
const OTHER_CHARSET = /;\s*charset\s*=\s*(?!"?utf-8"?\s*(?:;|$))/i;
const CONTINUE = /(?:^|,)\s*100-continue\s*(?:$|,)/i;

/**
 * Whether a Content-Type header names JSON in UTF-8: `application/json`, with parameters, a
 * `charset` only if it is UTF-8. Only such bodies are read; anything else reaches the route's
 * JsonContentTypeGuard unread and gets its 415 there, counted like every routed request.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const mediaType = semicolon === -1 ? header : header.slice(0, semicolon);
  return mediaType.trim().toLowerCase() === 'application/json' && !OTHER_CHARSET.test(header);
}

/** Whether a request declares a body at all (RFC 9112 §6.3: a length or a transfer coding). */
const hasBody = (request: IncomingMessage): boolean =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

type Next = (error?: unknown) => void;

/**
 * Express middleware that reads a JSON body into `request.body`, and the one place the body's size
 * is judged (docs/contract.md: 413 over `limit`):
 * - a declared `Content-Length` over `limit` gets its 413 on the headers, whatever the type, and
 *   none of the body is read;
 * - a body whose length is not declared (chunked) is read only up to `limit`: the 413 goes out as
 *   soon as it passes, not when the client is done (body-parser 2 reads the whole stream first);
 * - `100 Continue` is sent only here, when the body is about to be read: a refusal decided on the
 *   headers (413, an early 429) reaches a client that waits for it before sending the body.
 * Each refusal closes the connection after the answer with a lingering close (answerError).
 * Malformed JSON is a 400, through the exception filter.
 */
export function readJsonBody(limit: number) {
  return (request: IncomingMessage & { body?: unknown }, response: ServerResponse, next: Next) => {
    if (!hasBody(request)) return next();
    if (Number(request.headers['content-length']) > limit) return answerError(response, 413);
    if (!isJsonContentType(request.headers['content-type'])) return next();
    const expect = request.headers.expect;
    if (expect !== undefined && CONTINUE.test(expect)) response.writeContinue();
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      answerError(response, 413);
    };
    const onEnd = () => {
      stop();
      try {
        const text = Buffer.concat(chunks, size).toString('utf8');
        // A byte order mark is not JSON, but body-parser dropped it: clients send it.
        request.body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
      } catch {
        return next(new BadRequestException());
      }
      next();
    };
    request.on('data', onData);
    request.on('end', onEnd);
    // A client that leaves mid-body: nothing to answer; the socket's close ends the request.
    request.on('error', stop);
  };
}
