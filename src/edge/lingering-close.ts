import type { Socket } from 'node:net';
import { connectionOf } from './connection';
import { detachParser, onDestroySoon } from '../common/node-internals';

/** How long a lingering close reads (docs/operations.md, "Robustness"). */
export interface LingeringBounds {
  /** LINGERING_TIME_MS: at most this long in all. */
  timeMs: number;
  /** LINGERING_TIMEOUT_MS: closed once the client has sent nothing for this long. */
  timeoutMs: number;
  /** The body limit: at most this much more is read and dropped, then reading stops. */
  bytes: number;
}

/**
 * Stops reading past `bytes`: a client that keeps sending (an endless body, a flood) then stalls on
 * full kernel buffers, rather than make the server read all it can send in LINGERING_TIME_MS.
 */
function dropUpTo(socket: Socket, bytes: number): (chunk: Buffer) => void {
  let left = bytes;
  const drop = (chunk: Buffer): void => {
    left -= chunk.length;
    if (left >= 0) return;
    socket.off('data', drop);
    socket.pause();
  };
  return drop;
}

export const isLingering = (socket: Socket): boolean => connectionOf(socket)?.lingering === true;

/**
 * Closes after the answer as nginx's lingering close does: closing while the client still sends
 * makes the kernel reset, which can destroy the unread answer (ECONNRESET, curl's exit 55). So it
 * half-closes and drops, unparsed, what still arrives until the client closes or a bound passes.
 */
export function lingeringClose(socket: Socket, bounds: LingeringBounds): void {
  const connection = connectionOf(socket);
  if (connection?.lingering || socket.destroyed) return;
  if (connection !== undefined) connection.lingering = true;
  detachParser(socket);
  socket.on('data', dropUpTo(socket, bounds.bytes));
  socket.once('end', () => socket.destroy());
  socket.setTimeout(bounds.timeoutMs, () => socket.destroy());
  const deadline = setTimeout(() => socket.destroy(), bounds.timeMs).unref();
  socket.once('close', () => clearTimeout(deadline));
  socket.end();
  socket.resume();
}

/** Makes every `Connection: close` answer on `socket` end with a lingering close. */
export function lingerOnClose(socket: Socket, bounds: LingeringBounds): void {
  onDestroySoon(socket, () => lingeringClose(socket, bounds));
}
