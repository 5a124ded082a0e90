import { LoggerService } from '@nestjs/common';
import { inspect } from 'node:util';
import { DestinationStream, Level, Logger, pino } from 'pino';
import { AppLogLevel } from '../config/environment';
import { isoTimeEachMillisecond, LINE_BASE } from './request-log';
import { StdoutLog } from './stdout-log';

type Fields = Record<string, unknown>;
type LogMethod = (message: unknown, ...params: unknown[]) => void;

/** A plain object: its fields go into the line (an array or a class instance is a message). */
function isFields(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Nest's LoggerService over one pino logger: Nest's, the application's and the request lines in one
 * JSON stream. Nest's conventions: the context last, an error's stack after its message.
 */
export class AppLogger implements LoggerService {
  constructor(
    readonly pino: Logger,
    readonly destination: DestinationStream,
  ) {}

  readonly log: LogMethod = (message, ...params) => this.write('info', message, params);
  readonly error: LogMethod = (message, ...params) => this.write('error', message, params);
  readonly warn: LogMethod = (message, ...params) => this.write('warn', message, params);
  readonly debug: LogMethod = (message, ...params) => this.write('debug', message, params);
  readonly verbose: LogMethod = (message, ...params) => this.write('trace', message, params);
  readonly fatal: LogMethod = (message, ...params) => this.write('fatal', message, params);

  /** Before an exit: resolves once stdout has taken every line, or its bound has passed. */
  flushed(): Promise<void> {
    return this.destination instanceof StdoutLog ? this.destination.written() : Promise.resolve();
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = params.filter((param) => param !== undefined);
    const last = rest[rest.length - 1];
    // `Logger.error(message, stack)` without a context: a lone stack is not a context.
    const isContext = typeof last === 'string' && !(level === 'error' && /\n\s+at /.test(last));
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
    if (level === 'error' && typeof stack === 'string' && fields.err === undefined)
      fields.err = Object.assign(new Error(String(msg)), { stack });
    const text = typeof msg === 'string' ? msg : inspect(msg, { breakLength: Infinity });
    this.pino[level](fields, text);
  }
}

export function createAppLogger(level: AppLogLevel, destination: DestinationStream): AppLogger {
  const root = pino(
    {
      // pino has no 'verbose': its most detailed level is 'trace'.
      level: level === 'verbose' ? 'trace' : level,
      base: LINE_BASE,
      timestamp: isoTimeEachMillisecond(),
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return new AppLogger(root, destination);
}
