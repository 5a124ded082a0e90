import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ErrorResponses } from './error-responses';
import { toErrorBody } from './error-body';
import { loggedError } from './error-text';
import { type IdentifiedRequest, pathOf } from './answer-record';

type RoutedRequest = IdentifiedRequest & { originalUrl?: string };

/**
 * A path whose percent-encoding is malformed names nothing: a 404, not the 400 Nest makes of the
 * URIError Express's router raises for a path parameter (`/assets/%`).
 */
function errorBodyFor(exception: unknown, request: RoutedRequest) {
  const body = toErrorBody(exception);
  const url = request.originalUrl ?? request.url ?? '/';
  const path = pathOf(url);
  if (body.statusCode !== 400 || !path.includes('%')) return body;
  try {
    decodeURIComponent(path);
    return body;
  } catch {
    return { expected: true, statusCode: 404, message: `Cannot ${request.method} ${url}` };
  }
}

/** Unexpected errors are logged with their stack and the request id, never sent. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionsHandler');

  constructor(private readonly errors: ErrorResponses) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<ServerResponse>();
    // The edge answered this request already (its body broke off, or timed out) while it was being
    // handled: whatever the handling throws now is a consequence, not a fault.
    if (response.writableEnded) return;
    const request = http.getRequest<RoutedRequest>();
    const { expected, statusCode, message } = errorBodyFor(exception, request);
    if (!expected) this.logger.error({ reqId: request.id, ...loggedError(exception) });
    // Too late for a status line: end what was started rather than write a second answer.
    if (response.headersSent) response.end();
    else this.errors.send(response, statusCode, message);
  }
}
