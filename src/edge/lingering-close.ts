import type { Socket } from 'node:net';

/** How long a lingering close reads what a client still sends (docs/operations.md, "Robustness"). */
export interface LingeringBounds {
  /** LINGERING_TIME_MS: at most this long in all. */
  timeMs: number;
  /** LINGERING_TIMEOUT_MS: closed once the client has sent nothing for this long. */
  timeoutMs: number;
}

const LINGERING = Symbol('lingering');
type LingeringSocket = Socket & { [LINGERING]?: true };

const discard = (): void => undefined;

/** Whether `socket` is closing with a lingering close (its answer is sent; nothing more is parsed). */
export const isLingering = (socket: Socket): boolean =>
  (socket as LingeringSocket)[LINGERING] === true;

/**
 * Closes a connection after its answer without losing the answer, as nginx's lingering close does.
 * Closing a socket whose client is still sending makes the kernel answer with a reset, and the
 * reset can destroy the answer before the client reads it (EPIPE, ECONNRESET, curl's exit 55). So:
 * the answer already written, this half-closes (FIN after the answer), then reads and drops what
 * still arrives until the client closes its side, sends nothing for `timeoutMs`, or `timeMs` pass.
 *
 * Node has no API for it: after an answer with `Connection: close` it calls `socket.destroySoon()`
 * (lib/_http_server.js, resOnFinish), and its parser reads the socket's handle itself
 * (`parser.consume`). So the HTTP server's own 'data' and 'end' listeners are removed, and adding
 * a 'data' listener makes Node's socket wrapper give the handle back to JavaScript
 * (`unconsume`): from here on, bytes reach only `discard`, never the HTTP parser, so nothing in
 * them is parsed, routed or counted.
 */
export function lingeringClose(socket: Socket, bounds: LingeringBounds): void {
  const lingering = socket as LingeringSocket;
  if (lingering[LINGERING] || socket.destroyed) return;
  lingering[LINGERING] = true;
  for (const listener of socket.listeners('data')) socket.off('data', listener as () => void);
  for (const listener of socket.listeners('end')) socket.off('end', listener as () => void);
  socket.on('data', discard);
  socket.once('end', () => socket.destroy());
  socket.setTimeout(bounds.timeoutMs, () => socket.destroy());
  const deadline = setTimeout(() => socket.destroy(), bounds.timeMs).unref();
  socket.once('close', () => clearTimeout(deadline));
  socket.end();
  socket.resume();
}

/**
 * Makes every `Connection: close` answer on `socket` end with a lingering close: Node calls
 * `destroySoon()` once such an answer is sent.
 */
export function lingerOnClose(socket: Socket, bounds: LingeringBounds): void {
  socket.destroySoon = () => lingeringClose(socket, bounds);
}
