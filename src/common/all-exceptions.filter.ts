import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { answerError } from './error-answer';
import { toErrorBody } from './error-body';
import { loggedError } from './error-text';
import type { IdentifiedRequest } from './request-id';

type RoutedRequest = IdentifiedRequest & { originalUrl?: string };

/** Whether `url`'s path (its query aside) is not valid percent-encoding (`/assets/%`). */
function isUndecodablePath(url: string): boolean {
  const path = url.split('?', 1)[0];
  if (!path.includes('%')) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/**
 * The error body of `exception` for `request`. A 400 for a path whose percent-encoding is
 * malformed is a 404, as for every unknown path (docs/contract.md, "Errors"): such a path names
 * nothing. Express's router raises a URIError when it cannot decode a path parameter
 * (`/assets/:name` for `/assets/%`), and Nest turns it into a 400 before this filter sees it, which
 * would answer a path with the message of invalid input.
 */
function errorBodyFor(exception: unknown, request: RoutedRequest) {
  const body = toErrorBody(exception);
  const url = request.originalUrl ?? request.url ?? '/';
  if (body.statusCode !== 400 || !isUndecodablePath(url)) return body;
  return { expected: true, statusCode: 404, message: `Cannot ${request.method} ${url}` };
}

/**
 * Answers every failure with `{ statusCode, message }` and nothing else: HttpExceptions, the
 * body parser's errors, unknown routes (a path parameter that cannot be decoded too) and
 * unexpected errors (logged with their stack and the request id, never sent).
 * Headers set before the failure (rate-limit headers, Retry-After) are kept. Written by the edge's
 * one writer of error bodies (answerError).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionsHandler');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    // The edge answered this request already (its body broke off, or timed out) while it was being
    // handled: whatever the handling throws now is a consequence, not a fault.
    if (http.getResponse<ServerResponse>().writableEnded) return;
    const request = http.getRequest<RoutedRequest>();
    const { expected, statusCode, message } = errorBodyFor(exception, request);
    if (!expected) {
      const { id } = request;
      this.logger.error({ reqId: id, ...loggedError(exception) });
    }
    const { httpAdapter } = this.adapterHost;
    const response: unknown = http.getResponse();
    if (httpAdapter.isHeadersSent(response)) {
      // Too late for a status line: end what was started rather than write a second answer.
      httpAdapter.end(response);
      return;
    }
    // The edge's writer: the same bytes as the edge's own refusals, and a connection whose body is
    // still arriving closes after the answer with a lingering close.
    answerError(response as ServerResponse, statusCode, message);
  }
}
