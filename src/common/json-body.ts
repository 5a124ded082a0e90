import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  Injectable,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request, RequestHandler } from 'express';
import { BODY_LIMIT_BYTES, declaresOver, type ErrorResponses, hasBody } from './error-responses';
import { CONTENT_CODINGS, UNSUPPORTED_CONTENT_ENCODING_MESSAGE } from './error-messages';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** A `charset` other than UTF-8 (JSON between systems is UTF-8: RFC 8259, section 8.1). */
const OTHER_CHARSET = /;\s*charset\s*=\s*(?!"?utf-8"?\s*(?:;|$))/i;
const CONTINUE = /(?:^|,)\s*100-continue\s*(?:$|,)/i;

/**
 * Only such bodies are read; others get their 415 from the route's guard, counted as routed. Asked
 * twice per request (the body reader, the guard): recomputed, as cheap as a memo.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header === 'application/json') return true; // what nearly every client sends
  const semicolon = header.indexOf(';');
  const mediaType = semicolon === -1 ? header : header.slice(0, semicolon);
  return mediaType.trim().toLowerCase() === 'application/json' && !OTHER_CHARSET.test(header);
}

/** A route guard, so a 415 comes after the daily limit (counted) and before validation. */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { headers } = context.switchToHttp().getRequest<Request>();
    if (!isJsonContentType(headers['content-type'])) throw new UnsupportedMediaTypeException();
    return true;
  }
}

/**
 * The one judge of a body's size (docs/contract.md): a chunked body's 413 comes once past the
 * limit. Only this sends `100 Continue`: a client awaiting it gets a header refusal (413, 429) too.
 */
export function readJsonBody(errors: ErrorResponses): RequestHandler {
  return (request, response, next) => {
    if (!hasBody(request)) return next();
    if (declaresOver(request)) return errors.send(response, 413);
    if (!isJsonContentType(request.headers['content-type'])) return next();
    const decoder = decoderFor(request.headers['content-encoding']);
    if (decoder === undefined) {
      return errors.send(response, 415, UNSUPPORTED_CONTENT_ENCODING_MESSAGE);
    }
    if (CONTINUE.test(request.headers.expect ?? '')) response.writeContinue();
    readUpTo(errors, decoder, request, response, next);
  };
}

function readUpTo(
  errors: ErrorResponses,
  decoder: Transform | null,
  ...[request, response, next]: Parameters<RequestHandler>
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
    if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
    else {
      stop();
      errors.send(response, 413);
    }
  };
  const onEnd = () => {
    stop();
    const body = parseJsonObject(Buffer.concat(chunks, size));
    if (body === undefined) return next(new BadRequestException());
    request.body = body;
    next();
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

type Coding = (typeof CONTENT_CODINGS)[number] | 'x-gzip';
/** One for each of CONTENT_CODINGS, or it fails to compile; x-gzip is gzip (RFC 9110 §8.4.1.3). */
const DECODERS: Record<Coding, (() => Transform) | null> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
  identity: null,
};

/**
 * Undefined for a coding not decoded (a 415). Node joins repeated headers with `, `, so two headers
 * are one stacked value, refused like any list.
 */
function decoderFor(header: string | undefined): Transform | null | undefined {
  const coding = (header ?? 'identity').trim().toLowerCase();
  return Object.hasOwn(DECODERS, coding) ? (DECODERS[coding as Coding]?.() ?? null) : undefined;
}

/** An empty body is `{}`, for validation to refuse; anything but an object or array is a 400. */
function parseJsonObject(bytes: Buffer): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // A JSON body nearly always starts with its value: no search.
  const first = text[0] === '{' || text[0] === '[' ? text[0] : /\S/.exec(text)?.[0];
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
