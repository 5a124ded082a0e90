import type { IncomingMessage, ServerResponse } from 'node:http';
import { markClosing } from './connection';
import { answerCloses } from '../common/error-answer';
import { beforeHead } from './internals';

/**
 * Makes any answer to `request` (a 2xx as much as an error: a preflight, a health check, a page or
 * a file whose route reads no body) close its connection when the body is still arriving as the
 * answer's head goes out and would not be read and dropped whole (answerCloses): `Connection:
 * close`, then the lingering close, which reads at most the body limit more. Without it Node reads
 * and drops the rest of the body after the answer to keep the connection, however long it is (an
 * endless chunked body: gigabytes, until the request timeout). A body that has arrived by then, or
 * whose declared rest is within the limit, keeps the connection. Says whether the body is still
 * arriving so.
 */
export function closeIfBodyStillArriving(
  request: IncomingMessage,
  response: ServerResponse,
  bodyLimit: number,
): boolean {
  if (!answerCloses(request, bodyLimit)) return false;
  beforeHead(response, () => {
    if (response.headersSent || !answerCloses(request, bodyLimit)) return;
    response.setHeader('Connection', 'close');
    markClosing(request.socket);
  });
  return true;
}
