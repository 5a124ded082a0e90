/** The listen failures an operator fixes by choosing another port, as they are worded. */
const REASONS: Partial<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
};

/** A port this service must listen on cannot be had: start-up stops with this one line. */
export class ListenError extends Error {}

interface ListenFailure {
  syscall?: string;
  code?: string;
  address?: string;
  port?: number;
}

/**
 * `error` as a ListenError naming `variable`, the setting that chose the port, when it is such a
 * failure (e.g. `Cannot listen on 127.0.0.1:9464 (METRICS_PORT): address already in use`);
 * any other error as it is, for its stack.
 */
export function explainListenError(error: unknown, variable: string): unknown {
  const { syscall, code, address, port } = (error ?? {}) as ListenFailure;
  const reason = REASONS[code ?? ''];
  if (syscall !== 'listen' || reason === undefined) return error;
  const host = address?.includes(':') ? `[${address}]` : address;
  return new ListenError(`Cannot listen on ${host}:${port} (${variable}): ${reason}`);
}
