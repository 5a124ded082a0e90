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
 * exception filter logs the error itself, with its stack, once); a connection closed before the
 * answer ended gives "request aborted". No header, no body, no query string is logged.
 */
export function requestLog(logger: Logger): ResponseObserver {
  return (response, elapsedMs) => {
    const status = response.statusCode;
    const failed = status >= 500;
    if (!logger.isLevelEnabled(failed ? 'error' : 'info')) return;
    const request = response.req as Request & IdentifiedRequest;
    const line = {
      reqId: request.id,
      req: {
        method: request.method,
        path: pathOf(request.originalUrl ?? request.url),
        remoteAddress: request.ip ?? request.socket?.remoteAddress,
      },
      res: { statusCode: status },
      responseTime: Math.round(elapsedMs),
    };
    if (failed) logger.error(line, 'request failed');
    else logger.info(line, response.writableEnded ? 'request completed' : 'request aborted');
  };
}
