/** Anything thrown, as text: one line (`'message'`), or for a failure to trace (`'stack'`). */
export function errorText(error: unknown, detail: 'message' | 'stack' = 'message'): string {
  if (!(error instanceof Error)) return String(error);
  if (detail === 'stack') return error.stack ?? String(error);
  return error.message || error.name;
}

/** A rejection's reason may be any value. */
export const asError = (error: unknown): Error =>
  error instanceof Error ? error : new Error(String(error));

/** The fields of an error log line: the Error as `err` (for its stack), its text as `msg`. */
export const loggedError = (error: unknown): { err?: Error; msg: string } =>
  error instanceof Error ? { err: error, msg: errorText(error) } : { msg: errorText(error) };
