import { LoggerService } from '@nestjs/common';
import { hostname } from 'node:os';
import { inspect } from 'node:util';
import { DestinationStream, Level, LevelWithSilent, Logger, pino } from 'pino';
import { AppLogLevel, DEFAULT_LOG_BUFFER_BYTES } from '../config/environment';
import { StdoutLog } from './stdout-log';

/** pino's level for LOG_LEVEL: pino has no 'verbose', its most detailed level is 'trace'. */
function pinoLevel(level: AppLogLevel): LevelWithSilent {
  return level === 'verbose' ? 'trace' : level;
}

/**
 * pino's ISO time (`,"time":"<ISO>"`), made once per millisecond rather than once per line: under
 * load, several request lines share a millisecond, and toISOString is a visible part of each.
 */
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

/**
 * What every line of the process starts with and where it goes, shared by pino and by the request
 * log's plain writer (AppLogger.line), so both write the same line without reading pino's private
 * state: the base fields (pino's own default, set here explicitly), the time, the destination.
 */
interface JsonLineFormat {
  base: { pid: number; hostname: string };
  time: () => string;
  destination: DestinationStream;
}

/**
 * The process's JSON lines: `{"level":"info","time":"<ISO>","pid":…,"hostname":…, …,"msg":…}` on
 * `destination`: stdout through StdoutLog, which hands each line to the kernel at once while the
 * reader keeps up and never makes the service wait for a reader that does not (docs/operations.md,
 * "Logs").
 */
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

/** A stack trace: a line, then `    at …` lines. */
const looksLikeStack = (text: string): boolean => /\n\s+at /.test(text);

/** The Error Nest describes by its message and stack (`logger.error(message, stack)`). */
function errorOf(message: string, stack: string): Error {
  const error = new Error(message);
  error.stack = stack;
  return error;
}

/**
 * Nest's LoggerService over one pino logger, so Nest's own lines, the application's and the
 * request lines share one JSON stream. It takes Nest's calling conventions: the context last (a
 * `new Logger('Context')` appends it), an error's stack after its message; an Error as the message
 * is logged as `err`; an object as the message adds its fields to the line (`{ reqId, err, msg }`).
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

  /**
   * Writes a line as `pino[level](fields, msg)` would, from `fields` already written as JSON
   * (`"a":1,"b":"x"`) and a `msg` that needs no escaping: the request log's one line per answer,
   * with no object built for it. Checked byte for byte against pino's own (request-log.spec.ts).
   * On stdout it may wait for the end of the event loop's turn (StdoutLog.writeSoon).
   */
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

/**
 * Creates the application's logger at `level`, on stdout with the default buffer unless a
 * destination is given (LoggingModule gives stdout with LOG_BUFFER_BYTES; tests read the lines).
 */
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
