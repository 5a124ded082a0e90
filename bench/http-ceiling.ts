import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import {
  Answer,
  BODY_LIMIT_BYTES,
  calculate,
  errorAnswer,
  isJsonContentType,
  listenAddress,
  MESSAGES,
  notFound,
  TOO_LARGE,
  UNSUPPORTED,
} from './ceiling';
import { ROUTE } from './project';

/** The node:http ceiling: the service's work on the bare HTTP server, body read by hand. */
function send(response: ServerResponse, answer: Answer): void {
  const json = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  response.end(json);
}

/** Reads the whole body, or answers 413 once it passes the limit. */
function readBody(request: IncomingMessage, response: ServerResponse, done: (raw: string) => void) {
  if (Number(request.headers['content-length']) > BODY_LIMIT_BYTES) {
    send(response, TOO_LARGE);
    request.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
  });
  request.on('end', () => {
    if (size > BODY_LIMIT_BYTES) send(response, TOO_LARGE);
    else done(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString());
  });
}

function parseAndCalculate(raw: string): Answer {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return errorAnswer(400, MESSAGES.INVALID_INPUT_MESSAGE);
  }
  return calculate(body);
}

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method !== 'POST' || path !== ROUTE) {
    send(response, notFound(request.method ?? 'GET', path));
    request.resume();
  } else if (!isJsonContentType(request.headers['content-type'])) {
    send(response, UNSUPPORTED);
    request.resume();
  } else {
    readBody(request, response, (raw) => send(response, parseAndCalculate(raw)));
  }
});

const { port, host } = listenAddress();
server.listen(port, host);
