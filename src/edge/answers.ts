import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Connection, connectionOf, markClosing } from './connection';
import { answerCloses } from '../common/error-answer';
import { beforeHead } from '../common/node-internals';

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

/**
 * From now on the shutdown's answers close their connections (Edge.closeAnswers), the answers to
 * the requests already waiting too, whenever they arrived: a request whose headers came before the
 * signal and whose body completes during the drain delay is answered with `Connection: close`.
 */
export function closeAnswersFromNow(edge: {
  closeAnswers: boolean;
  readonly connections: ReadonlySet<Socket>;
}): void {
  edge.closeAnswers = true;
  for (const socket of edge.connections) {
    const connection = connectionOf(socket);
    connection?.eachWaiting((request, response) =>
      closeIfShutdownStillSays(edge, connection, request, response),
    );
  }
}

/**
 * Makes the answer to `request`, which arrived while the shutdown's answers close their connections
 * (Edge.closeAnswers) or was waiting when they started to, close its connection if they still do
 * when its head is written and no request pipelined behind it waits (the answer to the last one
 * closes the connection). Judged at the head, not at the request's arrival: a request that arrived
 * during the drain delay and is answered after it keeps its connection, so its client does not
 * reconnect just as the listener is about to close (judged at arrival, 22 of 50 busy keep-alive
 * clients on a loaded machine reconnected in one burst 100 ms later, and met the listener closing).
 */
export function closeIfShutdownStillSays(
  edge: { readonly closeAnswers: boolean },
  connection: Connection,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  beforeHead(response, () => {
    if (response.headersSent || !edge.closeAnswers || !connection.isLatest(request)) return;
    response.setHeader('Connection', 'close');
    connection.markClosing();
  });
}
