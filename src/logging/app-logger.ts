import { LoggerService } from '@nestjs/common';
import { hostname } from 'node:os';
import { inspect } from 'node:util';
import { DestinationStream, Level, LevelWithSilent, Logger, pino } from 'pino';
import { AppLogLevel, DEFAULTS } from '../config/environment';
import { isoTimeEachMillisecond, type JsonLineFormat } from './request-log';
import { StdoutLog } from './stdout-log';

/** pino's level for LOG_LEVEL: pino has no 'verbose', its most detailed level is 'trace'. */
function pinoLevel(level: AppLogLevel): LevelWithSilent {
  return level === 'verbose' ? 'trace' : level;
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
  constructor(
    readonly pino: Logger,
    readonly format: JsonLineFormat,
  ) {}

  /** Before an exit: resolves once stdout has taken every line, or its bound has passed. */
  flushed(): Promise<void> {
    const destination = this.format.destination;
    return destination instanceof StdoutLog ? destination.written() : Promise.resolve();
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
  destination: DestinationStream = new StdoutLog(DEFAULTS.LOG_BUFFER_BYTES),
): AppLogger {
  const format: JsonLineFormat = {
    base: { pid: process.pid, hostname: hostname() },
    time: isoTimeEachMillisecond(),
    destination,
  };
  return new AppLogger(createRootLogger(level, format), format);
}
