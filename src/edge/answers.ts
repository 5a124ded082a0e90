import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AnswerObserver } from '../common/answer-record';
import { markClosing } from './connections';
import { answerCloses } from '../common/error-answer';
import { beforeHead, serverOf } from './internals';
import type { LingeringBounds } from './lingering-close';

/** What the edge of one server knows when it writes an answer (set by installEdge). */
export interface EdgeContext {
  observers: AnswerObserver[];
  lingering: LingeringBounds;
  /** The body limit: a refusal keeps the connection only when what is left of the body is within it. */
  bodyLimit: number;
}

const CONTEXT = Symbol('edgeContext');
type ContextServer = Server & { [CONTEXT]?: EdgeContext };

export function setEdgeContext(server: Server, context: EdgeContext): void {
  (server as ContextServer)[CONTEXT] = context;
}

export function edgeContextOf(socket: Socket | null | undefined): EdgeContext | undefined {
  const server: ContextServer | undefined = socket ? serverOf(socket) : undefined;
  return server?.[CONTEXT];
}

/**
 * Makes any answer to `request` (a 2xx as much as an error: a preflight, a health check, a page or
 * a file whose route reads no body) close its connection when the body is still arriving as the
 * answer's head goes out and would not be read and dropped whole (answerCloses): `Connection:
 * close`, then the lingering close, which reads at most the body limit more. Without it Node reads
 * and drops the rest of the body after the answer to keep the connection, however long it is (an
 * endless chunked body: gigabytes, until the request timeout). A body that has arrived by then, or
 * whose declared rest is within the limit, keeps the connection.
 */
export function closeIfBodyStillArriving(
  request: IncomingMessage,
  response: ServerResponse,
  bodyLimit: number,
): void {
  if (!answerCloses(request, bodyLimit)) return;
  beforeHead(response, () => {
    if (response.headersSent || !answerCloses(request, bodyLimit)) return;
    response.setHeader('Connection', 'close');
    markClosing(request.socket);
  });
}
