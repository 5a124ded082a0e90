import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Connection, connectionOf, markClosing } from './connection';
import { responseCloses } from '../common/error-responses';
import { beforeHead } from '../common/node-internals';

/**
 * Makes any answer, a 2xx too, close its connection if the body is still arriving past the limit
 * as its head goes out (responseCloses): else Node reads and drops the rest to keep the connection,
 * however long (an endless chunked body: gigabytes). Says whether the body is still arriving so.
 */
export function closeIfBodyStillArriving(
  request: IncomingMessage,
  response: ServerResponse,
  bodyLimit: number,
): boolean {
  if (!responseCloses(request, bodyLimit)) return false;
  beforeHead(response, () => {
    if (response.headersSent || !responseCloses(request, bodyLimit)) return;
    response.setHeader('Connection', 'close');
    markClosing(request.socket);
  });
  return true;
}

/** From now on the shutdown's answers close their connections, those already waiting too. */
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
 * Judged when the head is written, not at arrival, and only for the last request pipelined: an
 * answer written after the drain delay keeps its connection, so its client does not reconnect just
 * as the listener closes.
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
