import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { requestId } from './request-id';

/** A request once the request log has seen it: `id` is its request id, also in X-Request-Id. */
export type IdentifiedRequest = IncomingMessage & { id?: string };

const STARTED_AT = Symbol('requestLogStartedAt');
type LoggedResponse = ServerResponse & { req: IdentifiedRequest; [STARTED_AT]?: number };

/** The path without its query string: a query may carry tokens, a log line never does. */
function pathOf(url = ''): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The Express middleware that writes one line per request when its answer is done, answers made
 * before routing (413, malformed JSON, preflights) included:
 * `{"level":"info",…,"reqId":…,"req":{"method","path","remoteAddress"},"res":{"statusCode"},
 * "responseTime":<ms>,"msg":"request completed"}`; a 5xx is an `error` line "request failed" (the
 * exception filter logs the error itself, with its stack, once); a connection closed before the
 * answer ended gives "request aborted". No header, no body, no query string is logged.
 * One shared listener per response and one pino call: no child logger, no request context.
 */
export function requestLog(logger: Logger) {
  const onClose = function (this: LoggedResponse): void {
    const status = this.statusCode;
    const failed = status >= 500;
    if (!logger.isLevelEnabled(failed ? 'error' : 'info')) return;
    const request = this.req;
    const line = {
      reqId: request.id,
      req: {
        method: request.method,
        path: pathOf((request as Request).originalUrl ?? request.url),
        remoteAddress: (request as Request).ip ?? request.socket?.remoteAddress,
      },
      res: { statusCode: status },
      responseTime: Date.now() - (this[STARTED_AT] ?? Date.now()),
    };
    if (failed) logger.error(line, 'request failed');
    else logger.info(line, this.writableEnded ? 'request completed' : 'request aborted');
  };

  return (request: IdentifiedRequest, response: ServerResponse, next: () => void): void => {
    request.id = requestId(request, response);
    (response as LoggedResponse)[STARTED_AT] = Date.now();
    response.on('close', onClose); // a response closes once: no once-wrapper needed
    next();
  };
}
