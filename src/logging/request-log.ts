import { hostname } from 'node:os';
import type { AnswerObserver, AnswerRecord } from '../common/answer-record';
import type { AppLogger } from './app-logger';
import { StdoutLog } from './stdout-log';

/** Under load, request lines share a millisecond, and toISOString is a visible part of each. */
export function isoTimeEachMillisecond(): () => string {
  let at = NaN;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

/** pino's `base` and the request log's, so both write the same line without pino's private state. */
export const LINE_BASE = { pid: process.pid, hostname: hostname() };

/** A string as JSON, or nothing (pino leaves out a field whose value is undefined). */
const field = (name: string, value: string | undefined, comma = ',') =>
  value === undefined ? '' : `${comma}"${name}":${JSON.stringify(value)}`;

/** A sampled span's ids, as the OpenTelemetry log data model names them: logs join traces. */
function traceFields(answer: AnswerRecord): string {
  const ids = answer.span?.spanContext();
  if (ids === undefined || (ids.traceFlags & 1) === 0) return '';
  return `,"trace_id":"${ids.traceId}","span_id":"${ids.spanId}"`;
}

function fieldsOf(answer: AnswerRecord): string {
  const id = field('reqId', answer.requestId, '');
  const req =
    `"req":{"method":${JSON.stringify(answer.method)},"path":${JSON.stringify(answer.path)}` +
    `${field('remoteAddress', answer.remoteAddress)}}`;
  const rest = `"res":{"statusCode":${answer.status}},"responseTime":${Math.round(answer.elapsedMs)}`;
  return `${id}${id ? ',' : ''}${req}${traceFields(answer)},${rest}`;
}

/** One line per answer, the edge's too (docs/operations.md, "Logs"); no header, body or query. */
export function requestLog({ pino, destination }: AppLogger): AnswerObserver {
  const time = isoTimeEachMillisecond();
  // pino[level](fields, msg)'s line, byte for byte, without building an object per answer.
  const bindings = `,${JSON.stringify(LINE_BASE).slice(1, -1)}`;
  const write =
    destination instanceof StdoutLog
      ? (text: string) => destination.writeSoon(text)
      : (text: string) => void destination.write(text);
  return (answer) => {
    const level = levelOf(answer.status);
    if (!pino.isLevelEnabled(level)) return;
    const done = answer.completed ? 'request completed' : 'request aborted';
    const msg = level === 'error' ? 'request failed' : done;
    write(`{"level":"${level}"${time()}${bindings},${fieldsOf(answer)},"msg":"${msg}"}\n`);
  };
}

/**
 * A 5xx is an error, but for a 503, said on purpose (a readiness probe while Redis is away), and a
 * 505, which any client can send at will: neither may page an operator.
 */
const levelOf = (status: number | null): 'info' | 'warn' | 'error' =>
  status === null || status < 500 || status === 505 ? 'info' : status === 503 ? 'warn' : 'error';
