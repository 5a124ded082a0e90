import { validateRequest } from './ceiling-validator';
import { dist } from './project';

/**
 * What both ceilings do for one request, with the project's own code: validate by hand, calculate
 * with DepreciationService on the system clock, serialise. No counting and no rate-limit headers:
 * the service's limiter has to fit in the margin between it and these.
 */
const { DepreciationService } = dist.service();
const { SystemClock } = dist.clock();
const service = new DepreciationService(new SystemClock());

export const MESSAGES = dist.messages();
export const { isJsonContentType } = dist.contentType();
export const BODY_LIMIT_BYTES = 8 * 1024;

/** A status and the body to send as JSON. */
export interface Answer {
  status: number;
  body: object;
}

export const errorAnswer = (status: number, message: string): Answer => ({
  status,
  body: { statusCode: status, message },
});

const BAD_REQUEST = errorAnswer(400, MESSAGES.INVALID_INPUT_MESSAGE);
export const UNSUPPORTED = errorAnswer(415, MESSAGES.UNSUPPORTED_MEDIA_TYPE_MESSAGE);
export const TOO_LARGE = errorAnswer(413, MESSAGES.PAYLOAD_TOO_LARGE_MESSAGE);
export const notFound = (method: string, path: string) =>
  errorAnswer(404, `Cannot ${method} ${path}`);

/** The answer to a parsed JSON body. */
export function calculate(body: unknown): Answer {
  const input = validateRequest(body);
  if (input === undefined) return BAD_REQUEST;
  try {
    return { status: 200, body: service.calculate(input) };
  } catch (error) {
    // The service refuses a purchase year after the current UTC year with a 400 HttpException.
    const status = (error as { getStatus?: () => number }).getStatus?.();
    if (status === 400) return BAD_REQUEST;
    console.error(error);
    return errorAnswer(500, MESSAGES.INTERNAL_ERROR_MESSAGE);
  }
}

/** The port and host the ceilings and the peer listen on (set by the bench runner). */
export function listenAddress(): { port: number; host: string } {
  return { port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' };
}
