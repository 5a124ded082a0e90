import { LoggerService } from '@nestjs/common';
import { hostname } from 'node:os';
import { inspect } from 'node:util';
import { DestinationStream, Level, LevelWithSilent, Logger, pino } from 'pino';
import type { AnswerObserver, AnswerRecord } from '../common/answer-record';
import { AppLogLevel, DEFAULT_LOG_BUFFER_BYTES } from '../config/environment';
import { StdoutLog } from './stdout-log';

/** pino's level for LOG_LEVEL: pino has no 'verbose', its most detailed level is 'trace'. */
function pinoLevel(level: AppLogLevel): LevelWithSilent {
  return level === 'verbose' ? 'trace' : level;
}

/** Under load, request lines share a millisecond, and toISOString is a visible part of each. */
function isoTimeEachMillisecond(): () => string {
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

/** Shared by pino and AppLogger.line, so both write the same line without pino's private state. */
interface JsonLineFormat {
  base: { pid: number; hostname: string };
  time: () => string;
  destination: DestinationStream;
}

function createRootLogger(level: AppLogLevel, format: JsonLineFormat): Logger {
  return pino(
    {
      level: pinoLevel(level),
      base: format.base,
      timestamp: format.time,
      formatters: { level: (label) => ({ level: label }) },
    },
    format.destination,
  );
}

type Fields = Record<string, unknown>;

/** A plain object: its fields go into the line (an array or a class instance is a message). */
function isFields(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

const looksLikeStack = (text: string): boolean => /\n\s+at /.test(text);

function errorOf(message: string, stack: string): Error {
  const error = new Error(message);
  error.stack = stack;
  return error;
}

/**
 * Nest's LoggerService over one pino logger: Nest's, the application's and the request lines in one
 * JSON stream. Nest's conventions: the context last, an error's stack after its message.
 */
export class AppLogger implements LoggerService {
  /** `,"pid":…,"hostname":…`, as pino writes the base after the time. */
  private readonly bindings: string;

  constructor(
    readonly pino: Logger,
    private readonly format: JsonLineFormat,
  ) {
    this.bindings = `,${JSON.stringify(format.base).slice(1, -1)}`;
  }

  /** Before an exit: resolves once stdout has taken every line, or its bound has passed. */
  flushed(): Promise<void> {
    const destination = this.format.destination;
    return destination instanceof StdoutLog ? destination.written() : Promise.resolve();
  }

  /** `pino[level](fields, msg)`'s line, byte for byte, without building an object per answer. */
  line(level: 'info' | 'warn' | 'error', fields: string, msg: string): void {
    const head = `{"level":"${level}"${this.format.time()}${this.bindings}`;
    const text = `${head},${fields},"msg":"${msg}"}\n`;
    const destination = this.format.destination;
    if (destination instanceof StdoutLog) destination.writeSoon(text);
    else void destination.write(text);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = params.filter((param) => param !== undefined);
    const last = rest[rest.length - 1];
    // `Logger.error(message, stack)` without a context: a lone stack is not a context.
    const isContext = typeof last === 'string' && !(level === 'error' && looksLikeStack(last));
    const context = isContext ? (rest.pop() as string) : '';
    const fields: Fields = context === '' ? {} : { context };
    let msg: unknown = message;
    if (message instanceof Error) {
      fields.err = message;
      msg = message.message;
    } else if (isFields(message)) {
      Object.assign(fields, message);
      msg = message.msg;
      delete fields.msg;
    }
    const [stack] = rest;
    if (level === 'error' && typeof stack === 'string' && fields.err === undefined) {
      fields.err = errorOf(String(msg), stack);
    }
    this.pino[level](
      fields,
      typeof msg === 'string' ? msg : inspect(msg, { breakLength: Infinity }),
    );
  }
}

export function createAppLogger(
  level: AppLogLevel,
  destination: DestinationStream = new StdoutLog(DEFAULT_LOG_BUFFER_BYTES),
): AppLogger {
  const format: JsonLineFormat = {
    base: { pid: process.pid, hostname: hostname() },
    time: isoTimeEachMillisecond(),
    destination,
  };
  return new AppLogger(createRootLogger(level, format), format);
}

type RequestLevel = 'info' | 'warn' | 'error';

/** A string as JSON, or nothing (pino leaves out a field whose value is undefined). */
const field = (name: string, value: string | undefined, comma = ',') =>
  value === undefined ? '' : `${comma}"${name}":${JSON.stringify(value)}`;

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
const levelOf = (status: number | null): RequestLevel =>
  status === null || status < 500 || status === 505 ? 'info' : status === 503 ? 'warn' : 'error';
