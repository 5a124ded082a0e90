import type { Logger } from 'pino';
import type { AnswerObserver } from '../edge/answer-record';

/**
 * One line per answer, answers made at the edge (413, 408, a 503 over the connection cap, an
 * early 429, preflights) included:
 * `{"level":"info",…,"reqId":…,"req":{"method","path","remoteAddress"},"res":{"statusCode"},
 * "responseTime":<ms>,"msg":"request completed"}`; a 5xx is an `error` line "request failed" (the
 * exception filter logs the error itself, with its stack, once), a 503 a `warn` line; a connection
 * closed before the answer ended gives "request aborted", with a null status if none was sent.
 * No header, no body, no query string is logged.
 */
export function requestLog(logger: Logger): AnswerObserver {
  return (answer) => {
    const level = levelOf(answer.status);
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      reqId: answer.requestId,
      req: { method: answer.method, path: answer.path, remoteAddress: answer.remoteAddress },
      res: { statusCode: answer.status },
      responseTime: Math.round(answer.elapsedMs),
    };
    const done = answer.completed ? 'request completed' : 'request aborted';
    logger[level](line, level === 'error' ? 'request failed' : done);
  };
}

/**
 * A 5xx is an error, but for a 503: the service says on purpose that it cannot serve now (a
 * readiness check while Redis is away answers one per probe), which an operator wants to see, not
 * to be paged for; and for a 505, the client's own fault (an HTTP version the service does not
 * take), which any client can send at will and must not page anyone.
 */
const levelOf = (status: number | null): 'info' | 'warn' | 'error' =>
  status === null || status < 500 || status === 505 ? 'info' : status === 503 ? 'warn' : 'error';
