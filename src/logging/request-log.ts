import type { AnswerObserver, AnswerRecord } from '../common/answer-record';
import type { AppLogger } from './app-logger';

type Level = 'info' | 'warn' | 'error';

/** A string as JSON, or nothing (pino leaves out a field whose value is undefined). */
const field = (name: string, value: string | undefined, comma = ',') =>
  value === undefined ? '' : `${comma}"${name}":${JSON.stringify(value)}`;

/** `"reqId":…,"req":{…},"res":{…},"responseTime":…`, as pino serializes the line's fields. */
function fieldsOf(answer: AnswerRecord): string {
  const id = field('reqId', answer.requestId, '');
  const req =
    `"req":{"method":${JSON.stringify(answer.method)},"path":${JSON.stringify(answer.path)}` +
    `${field('remoteAddress', answer.remoteAddress)}}`;
  const rest = `"res":{"statusCode":${answer.status}},"responseTime":${Math.round(answer.elapsedMs)}`;
  return `${id}${id ? ',' : ''}${req},${rest}`;
}

/**
 * One line per answer, answers made at the edge (413, 408, a 503 over the connection cap, an
 * early 429, preflights) included:
 * `{"level":"info",…,"reqId":…,"req":{"method","path","remoteAddress"},"res":{"statusCode"},
 * "responseTime":<ms>,"msg":"request completed"}`; a 5xx is an `error` line "request failed" (the
 * exception filter logs the error itself, with its stack, once), a 503 a `warn` line; a connection
 * closed before the answer ended gives "request aborted", with a null status if none was sent.
 * No header, no body, no query string is logged.
 */
export function requestLog(logger: AppLogger): AnswerObserver {
  return (answer) => {
    const level = levelOf(answer.status);
    if (!logger.pino.isLevelEnabled(level)) return;
    const done = answer.completed ? 'request completed' : 'request aborted';
    logger.line(level, fieldsOf(answer), level === 'error' ? 'request failed' : done);
  };
}

/**
 * A 5xx is an error, but for a 503: the service says on purpose that it cannot serve now (a
 * readiness check while Redis is away answers one per probe), which an operator wants to see, not
 * to be paged for; and for a 505, the client's own fault (an HTTP version the service does not
 * take), which any client can send at will and must not page anyone.
 */
const levelOf = (status: number | null): Level =>
  status === null || status < 500 || status === 505 ? 'info' : status === 503 ? 'warn' : 'error';
