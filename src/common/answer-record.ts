import { randomUUID } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddress } from './client-key';
import { AnswerHeader } from './platform-internals';

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
  /** The request's server span, when traces are on (tracing/tracing.ts). */
  span?: Span;
}

export type AnswerObserver = (answer: AnswerRecord) => void;

/** An absolute-form target's scheme and authority, with the path's slash: `http://host:port/`. */
const SCHEME_AND_AUTHORITY = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*\/?/i;

/**
 * A target in origin form: an absolute-form one (`http://host/zz`), which a server must accept
 * (RFC 9112 §3.2.2), as its path and query, so nothing in its authority is echoed anywhere.
 */
export const originForm = (url: string): string =>
  url.charCodeAt(0) === 0x2f ? url : url.replace(SCHEME_AND_AUTHORITY, '/');

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** As Express left the request (`originalUrl`: its whole URL), or as the socket writer read it. */
type RecordedRequest = Partial<Pick<Request, 'method' | 'url' | 'originalUrl' | 'route' | 'ip'>> & {
  socket: Socket;
  id?: string;
  span?: Span;
};

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
    span: request.span,
  };
}

export const REQUEST_ID_HEADER = 'X-Request-Id';
const REQUEST_ID = new AnswerHeader(REQUEST_ID_HEADER);

const SANE_REQUEST_ID = /^[\w.:+=/-]{1,128}$/;

export type IdentifiedRequest = IncomingMessage & { id?: string };

/** Before anything else; the caller's id when sane, so a proxy's id follows it through the logs. */
export function identifyRequest(request: IdentifiedRequest, response: ServerResponse): void {
  const given = request.headers[REQUEST_ID.key];
  request.id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
  // A UUID, or a caller's id that SANE_REQUEST_ID passed: nothing in it for setHeader to refuse.
  REQUEST_ID.setChecked(response, request.id);
}
