import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ResponseObserver } from '../common/response-hook';
import { requestId } from './request-id';

/** A request once the request log has seen it: `id` is its request id, also in X-Request-Id. */
export type IdentifiedRequest = IncomingMessage & { id?: string };

/** Gives the request its id (X-Request-Id), before anything else handles it. */
export const identifyRequest = (request: IdentifiedRequest, response: ServerResponse): void => {
  request.id = requestId(request, response);
};

/** The path without its query string: a query may carry tokens, a log line never does. */
function pathOf(url = ''): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * One line per request when its answer is done, answers made before routing (413, malformed JSON,
 * preflights) included:
 * `{"level":"info",…,"reqId":…,"req":{"method","path","remoteAddress"},"res":{"statusCode"},
 * "responseTime":<ms>,"msg":"request completed"}`; a 5xx is an `error` line "request failed" (the
 * exception filter logs the error itself, with its stack, once), a 503 a `warn` line; a connection
 * closed before the answer ended gives "request aborted", with a null status if none was sent.
 * No header, no body, no query string is logged.
 */
export function requestLog(logger: Logger): ResponseObserver {
  return (response, elapsedMs) => {
    const status = response.statusCode;
    const level = levelOf(status);
    if (!logger.isLevelEnabled(level)) return;
    const request = response.req as Request & IdentifiedRequest;
    const line = {
      reqId: request.id,
      req: {
        method: request.method,
        path: pathOf(request.originalUrl ?? request.url),
        remoteAddress: request.ip ?? request.socket?.remoteAddress,
      },
      // A client that left before the status line was sent got no status at all.
      res: { statusCode: response.headersSent ? status : null },
      responseTime: Math.round(elapsedMs),
    };
    const done = response.writableEnded ? 'request completed' : 'request aborted';
    logger[level](line, level === 'error' ? 'request failed' : done);
  };
}

/**
 * A 5xx is an error, but for a 503: the service says on purpose that it cannot serve now (a
 * readiness check while Redis is away answers one per probe), which an operator wants to see, not
 * to be paged for.
 */
const levelOf = (status: number): 'info' | 'warn' | 'error' =>
  status < 500 ? 'info' : status === 503 ? 'warn' : 'error';
