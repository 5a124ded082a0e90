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

/** One line per answer, the edge's too (docs/operations.md, "Logs"); no header, body or query. */
export function requestLog(logger: AppLogger): AnswerObserver {
  return (answer) => {
    const level = levelOf(answer.status);
    if (!logger.pino.isLevelEnabled(level)) return;
    const done = answer.completed ? 'request completed' : 'request aborted';
    logger.line(level, fieldsOf(answer), level === 'error' ? 'request failed' : done);
  };
}

/**
 * A 5xx is an error, but for a 503, said on purpose (a readiness probe while Redis is away), and a
 * 505, which any client can send at will: neither may page an operator.
 */
const levelOf = (status: number | null): Level =>
  status === null || status < 500 || status === 505 ? 'info' : status === 503 ? 'warn' : 'error';
