import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { answerError } from '../edge/answers';
import { toErrorBody } from '../edge/error-body';
import { errorText } from '../edge/error-text';
import type { IdentifiedRequest } from '../edge/request-id';

/**
 * Answers every failure with `{ statusCode, message }` and nothing else: HttpExceptions, the
 * body parser's errors, unknown routes and unexpected errors (logged with their stack and the
 * request id, never sent).
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
    const { expected, statusCode, message } = toErrorBody(exception);
    if (!expected) {
      const { id } = http.getRequest<IdentifiedRequest>();
      const msg = errorText(exception);
      this.logger.error(
        exception instanceof Error ? { reqId: id, err: exception, msg } : { reqId: id, msg },
      );
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
