import type { Socket } from 'node:net';
import { clientAddress } from './client-key';

/** One answer as the request log and the metrics see it, whoever wrote it. */
export interface AnswerRecord {
  method: string;
  /** The path without its query string (a query may carry tokens; a log line never does). */
  path: string;
  /** Express's matched route, when a route handled it (metrics label it with its pattern). */
  route?: unknown;
  /** The status sent; null when the client left before a status line was sent. */
  status: number | null;
  completed: boolean;
  remoteAddress?: string;
  requestId?: string;
  elapsedMs: number;
}

export type AnswerObserver = (answer: AnswerRecord) => void;

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The request as Express left it, or as the socket writer read it. */
interface RecordedRequest {
  method?: string;
  url?: string;
  /** Express's whole URL, when a router mounted under a path changed `url`. */
  originalUrl?: string;
  route?: unknown;
  ip?: string;
  socket: Socket;
  id?: string;
}

export function answerRecord(
  request: RecordedRequest,
  status: number | null,
  completed: boolean,
  elapsedMs: number,
): AnswerRecord {
  return {
    method: request.method ?? '-',
    path: pathOf(request.originalUrl ?? request.url ?? ''),
    route: request.route,
    status,
    completed,
    remoteAddress: clientAddress(request),
    requestId: request.id,
    elapsedMs,
  };
}
