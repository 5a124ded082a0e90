import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DestinationStream, LevelWithSilent, stdTimeFunctions } from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';
import { AppLogLevel } from '../config/environment';
import { requestId } from './request-id';

/** The token of the application's pino-http middleware (its `logger` is the root pino logger). */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/** pino's level for LOG_LEVEL: pino has no 'verbose', its most detailed level is 'trace'. */
export function pinoLevel(level: AppLogLevel): LevelWithSilent {
  return level === 'verbose' ? 'trace' : level;
}

/** What a log line tells of a request: no headers, no body, no query string. */
function serializeRequest(request: IncomingMessage): Record<string, unknown> {
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return {
    method: request.method,
    path: query === -1 ? url : url.slice(0, query),
    remoteAddress: (request as Request).ip ?? request.socket?.remoteAddress,
  };
}

const serializeResponse = (response: ServerResponse): Record<string, unknown> => ({
  statusCode: response.statusCode,
});

/**
 * The logger of the whole application: JSON lines on stdout (or `destination`), one per request
 * when its answer is sent, with the request id bound to every line logged while handling it.
 * A 5xx line carries no error: the exception filter logs the error, with its stack, once.
 */
export function createHttpLogger(level: AppLogLevel, destination?: DestinationStream): HttpLogger {
  return pinoHttp<IncomingMessage, ServerResponse, never>(
    {
      level: pinoLevel(level),
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      genReqId: requestId,
      quietReqLogger: true,
      wrapSerializers: false,
      serializers: { req: serializeRequest, res: serializeResponse },
      customLogLevel: (_request, response): LevelWithSilent =>
        response.statusCode >= 500 ? 'error' : 'info',
      customSuccessMessage: (_request, response) =>
        response.writableEnded ? 'request completed' : 'request aborted',
      customErrorMessage: () => 'request failed',
      customErrorObject: (_request, _response, _error, line: Record<string, unknown>) => ({
        res: line.res,
        responseTime: line.responseTime,
      }),
    },
    destination,
  );
}
