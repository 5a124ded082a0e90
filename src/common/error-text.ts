/**
 * Anything thrown, as text: `'message'`, one line for a log line or a health field (an Error's
 * message, or its name when the message is empty); `'stack'`, for a failure an operator must trace
 * (an Error's stack when it has one). A value that is not an Error is what `String()` makes of it.
 */
export function errorText(error: unknown, detail: 'message' | 'stack' = 'message'): string {
  if (!(error instanceof Error)) return String(error);
  if (detail === 'stack') return error.stack ?? String(error);
  return error.message || error.name;
}

/** Anything thrown, as an Error (a rejection's reason may be any value). */
export const asError = (error: unknown): Error =>
  error instanceof Error ? error : new Error(String(error));

/**
 * Anything thrown, as the fields of an error log line: the Error as `err` (its stack, when the
 * logger writes one) and its one-line text as `msg`.
 */
export const loggedError = (error: unknown): { err?: Error; msg: string } =>
  error instanceof Error ? { err: error, msg: errorText(error) } : { msg: errorText(error) };
