import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { FIXED_MESSAGES, INTERNAL_ERROR_MESSAGE } from './error-messages';

/** docs/contract.md: a 404's message names its path, which may be as long as the headers. */
const MAX_MESSAGE_LENGTH = 200;
const ELLIPSIS = '…';

/** A client error raised below Nest, by Express or a middleware (http-errors: `status` 4xx). */
function clientErrorStatus(exception: unknown): number | undefined {
  if (!(exception instanceof Error)) return undefined;
  const { status } = exception as Error & { status?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function messageFor(status: number, own: string | undefined): string {
  const fixed = FIXED_MESSAGES[status];
  if (fixed !== undefined) return own !== undefined && fixed.includes(own) ? own : fixed[0];
  return shortened(own ?? STATUS_CODES[status] ?? INTERNAL_ERROR_MESSAGE);
}

/** Never cut between a surrogate pair's halves. */
function shortened(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  let end = MAX_MESSAGE_LENGTH - ELLIPSIS.length;
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${message.slice(0, end)}${ELLIPSIS}`;
}

/** `expected` is false for failures whose detail belongs in the log (500s), never in the answer. */
export function toErrorBody(exception: unknown) {
  const thrown = exception instanceof HttpException ? exception : undefined;
  const statusCode = thrown?.getStatus() ?? clientErrorStatus(exception) ?? 500;
  // A 503 or 504 thrown on purpose (a readiness check) says what it means; a 500 is a fault.
  const expected = statusCode !== 500;
  return { statusCode, message: messageFor(statusCode, thrown?.message), expected };
}

/** The one error body, as every writer sends it and the OpenAPI document shows it. */
export const errorBody = (status: number, message?: string) => ({
  statusCode: status,
  message: messageFor(status, message ?? STATUS_CODES[status] ?? ''),
});
