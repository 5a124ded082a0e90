import { BadRequestException } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerError } from './error-answer';
import { declaresOver, hasBody } from './request-body';
import { UNSUPPORTED_CONTENT_ENCODING_MESSAGE } from './error-messages';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Bodies above this are refused with 413 before they are read whole (a valid one is ~100 bytes). */
export const BODY_LIMIT_BYTES = 8 * 1024;

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
  if (header === 'application/json') return true; // what nearly every client sends
  const semicolon = header.indexOf(';');
  const mediaType = semicolon === -1 ? header : header.slice(0, semicolon);
  return mediaType.trim().toLowerCase() === 'application/json' && !OTHER_CHARSET.test(header);
}

/**
 * Whether `request` declares a JSON body in UTF-8 (isJsonContentType of its Content-Type). Asked
 * at most twice per request (the body reader, the route's guard): recomputed, as cheap as a memo.
 */
export const isJsonRequest = (request: IncomingMessage): boolean =>
  isJsonContentType(request.headers['content-type']);

type Next = (error?: unknown) => void;

/**
 * Express middleware that reads a JSON body into `request.body`, and the one place the body's size
 * is judged (docs/contract.md: 413 over `limit`):
 * - a declared `Content-Length` over `limit` gets its 413 on the headers, whatever the type, and
 *   none of the body is read;
 * - a body whose length is not declared (chunked) is read only up to `limit`: the 413 goes out as
 *   soon as it passes, not when the client is done;
 * - `100 Continue` is sent only here, when the body is about to be read: a refusal decided on the
 *   headers (413, an early 429) reaches a client that waits for it before sending the body.
 * - gzip, deflate and br bodies are decoded, the limit holding for what they decode to; any other
 *   `Content-Encoding`, or several stacked (`identity, gzip`, two headers), is a 415 naming the
 *   coding, before routing: not counted, like every refusal made before the body is read;
 * Each refusal closes the connection after the answer with a lingering close (answerError).
 * Malformed JSON, or JSON that is neither an object nor an array, is a 400 through the exception
 * filter, before routing (not counted).
 */
export function readJsonBody(limit: number) {
  return (request: IncomingMessage & { body?: unknown }, response: ServerResponse, next: Next) => {
    if (!hasBody(request)) return next();
    if (declaresOver(request, limit)) return answerError(response, 413);
    if (!isJsonRequest(request)) return next();
    const decoder = decoderFor(request.headers['content-encoding']);
    if (decoder === undefined) {
      return answerError(response, 415, UNSUPPORTED_CONTENT_ENCODING_MESSAGE);
    }
    const expect = request.headers.expect;
    if (expect !== undefined && CONTINUE.test(expect)) response.writeContinue();
    readUpTo(limit, request, decoder, response, next);
  };
}

/** Reads the body (through `decoder`, if any) up to `limit` bytes, then parses it. */
function readUpTo(
  limit: number,
  request: IncomingMessage & { body?: unknown },
  decoder: Transform | null,
  response: ServerResponse,
  next: Next,
): void {
  const source: Readable = decoder === null ? request : request.pipe(decoder);
  const chunks: Buffer[] = [];
  let size = 0;
  const stop = () => {
    source.off('data', onData);
    source.off('end', onEnd);
    response.off('finish', stop);
    if (decoder) {
      request.unpipe(decoder);
      decoder.destroy();
    }
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
    deliver(request, Buffer.concat(chunks, size), next);
  };
  source.on('data', onData);
  source.on('end', onEnd);
  // Answered meanwhile (a parser error, a timeout): nothing more is read or handled.
  response.on('finish', stop);
  // A client that leaves mid-body: nothing to answer; the socket's close ends the request.
  request.on('error', stop);
  // A body its coding cannot decode is malformed.
  decoder?.on('error', () => {
    stop();
    next(new BadRequestException());
  });
}

/** Hands the parsed body on, or a 400 for one that is not strict JSON. */
function deliver(request: IncomingMessage & { body?: unknown }, bytes: Buffer, next: Next): void {
  const body = parseJsonObject(bytes);
  if (body === undefined) return next(new BadRequestException());
  request.body = body;
  next();
}

/**
 * The decoder of a `Content-Encoding`: null for none (identity),
 * undefined for a coding the service does not decode (a 415). Node joins repeated headers with
 * `, `, so two headers are one stacked value, refused like any list.
 */
function decoderFor(header: string | undefined): Transform | null | undefined {
  const coding = (header ?? 'identity').trim().toLowerCase();
  if (coding === 'identity') return null;
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip();
  if (coding === 'deflate') return createInflate();
  if (coding === 'br') return createBrotliDecompress();
  return undefined;
}

/**
 * A body as strict JSON: an object or an array (anything else, or malformed
 * JSON, is undefined: a 400 before routing, not counted); an empty body is `{}` (validation then
 * refuses it); a byte order mark is dropped.
 */
function parseJsonObject(bytes: Buffer): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = firstNonSpace(text);
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The first character of `text` that is not white space (as `/\S/` finds it), if any. */
function firstNonSpace(text: string): string | undefined {
  const first = text[0];
  // A JSON body nearly always starts with its value: no search.
  if (first === '{' || first === '[') return first;
  return /\S/.exec(text)?.[0];
}
