import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import express, { NextFunction, Request, Response } from 'express';
import { SystemClock } from '../src/common/clock';
import { DepreciationService } from '../src/depreciation/depreciation.service';
import * as messages from '../src/common/error-messages';
import { BODY_LIMIT_BYTES as LIMIT } from '../src/common/error-responses';
import { isJsonContentType } from '../src/common/json-body';
import { ROUTE } from './common';
import { passesPrecheck } from './precheck';

/**
 * The ceilings (`ceilings.js express|http`): bare Express 5 (no X-Powered-By, no ETag, as the
 * service) and bare node:http, each answering with DepreciationService after the service's own
 * precheck, with the contract's error bodies; no counting, no rate-limit headers.
 */
const service = new DepreciationService(new SystemClock());
type Answer = [status: number, body: object];
const error = (status: number, message: string): Answer => [
  status,
  { statusCode: status, message },
];
const BAD_REQUEST = error(400, messages.INVALID_INPUT_MESSAGE);
const UNSUPPORTED = error(415, messages.UNSUPPORTED_MEDIA_TYPE_MESSAGE);
const TOO_LARGE = error(413, messages.PAYLOAD_TOO_LARGE_MESSAGE);
const INTERNAL = error(500, messages.INTERNAL_ERROR_MESSAGE);
const notFound = (method = 'GET', path: string) => error(404, `Cannot ${method} ${path}`);

/** The answer to a parsed body (the service refuses a year after the current UTC one: 400). */
function calculate(body: unknown): Answer {
  if (!passesPrecheck(body)) return BAD_REQUEST;
  try {
    return [200, service.calculate(body)];
  } catch (thrown) {
    if ((thrown as { getStatus?: () => number }).getStatus?.() === 400) return BAD_REQUEST;
    console.error(thrown);
    return INTERNAL;
  }
}

function expressCeiling() {
  const app = express().disable('x-powered-by').set('etag', false);
  const send = (response: Response, [status, body]: Answer) => response.status(status).json(body);
  const json = express.json({ limit: LIMIT, type: 'application/json' });
  const jsonOnly = (rq: Request, response: Response, next: NextFunction) =>
    isJsonContentType(rq.headers['content-type']) ? next() : send(response, UNSUPPORTED);
  app.post(ROUTE, jsonOnly, json, (rq: Request, rs: Response) => send(rs, calculate(rq.body)));
  app.use((rq: Request, response: Response) => send(response, notFound(rq.method, rq.path)));
  // body-parser's errors: malformed JSON (400), too large (413), an unsupported charset (415).
  app.use((thrown: { status?: number }, _rq: Request, response: Response, _next: NextFunction) => {
    const byStatus: Record<number, Answer> = { 400: BAD_REQUEST, 413: TOO_LARGE, 415: UNSUPPORTED };
    send(response, byStatus[thrown.status ?? 500] ?? INTERNAL);
  });
  return app;
}

function httpCeiling() {
  const send = (response: ServerResponse, [status, body]: Answer) => {
    const json = JSON.stringify(body);
    const type = 'application/json; charset=utf-8';
    response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(json) });
    response.end(json);
  };
  const parse = (raw: string) => {
    try {
      return calculate(JSON.parse(raw));
    } catch {
      return BAD_REQUEST;
    }
  };
  const read = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => (size += chunk.length) <= LIMIT && chunks.push(chunk));
    request.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      send(response, size > LIMIT ? TOO_LARGE : parse(raw.toString()));
    });
  };
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'POST' || path !== ROUTE) send(response, notFound(request.method, path));
    else if (!isJsonContentType(request.headers['content-type'])) send(response, UNSUPPORTED);
    else if (Number(request.headers['content-length']) > LIMIT) send(response, TOO_LARGE);
    else return read(request, response);
    request.resume();
  });
}

const server = process.argv[2] === 'express' ? expressCeiling() : httpCeiling();
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
