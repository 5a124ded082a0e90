import type { Socket } from 'node:net';
import { connectionOf } from './connection';
import { detachParser, onDestroySoon } from '../common/node-internals';

/** How long a lingering close reads what a client still sends (docs/operations.md, "Robustness"). */
export interface LingeringBounds {
  /** LINGERING_TIME_MS: at most this long in all. */
  timeMs: number;
  /** LINGERING_TIMEOUT_MS: closed once the client has sent nothing for this long. */
  timeoutMs: number;
  /** The body limit: at most this much more is read and dropped, then reading stops. */
  bytes: number;
}

/**
 * A 'data' listener that drops what arrives until more than `bytes` have, then stops reading
 * `socket`: what the client still sends waits in the kernel's buffers, its writes stall once they
 * are full, and the connection closes when nothing has been read for the lingering timeout. So a
 * client that keeps sending after its answer (an endless body, a flood of pipelined requests)
 * makes the server read no more than `bytes` and a read or two, not whatever it can send in
 * LINGERING_TIME_MS.
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

/** Whether `socket` is closing with a lingering close (its answer is sent; nothing more is parsed). */
export const isLingering = (socket: Socket): boolean => connectionOf(socket)?.lingering === true;

/**
 * Closes a connection after its answer without losing the answer, as nginx's lingering close does.
 * Closing a socket whose client is still sending makes the kernel answer with a reset, and the
 * reset can destroy the answer before the client reads it (EPIPE, ECONNRESET, curl's exit 55). So:
 * the answer already written, this half-closes (FIN after the answer), then reads and drops what
 * still arrives until the client closes its side, sends nothing for `timeoutMs`, or `timeMs` pass,
 * and reads no more once `bytes` have arrived (dropUpTo): the client has its answer by then, and
 * what it sends after it is not worth reading.
 *
 * Node has no API for it (common/node-internals.ts: `destroySoon`, the parser's listeners): the
 * parser is detached, and from here on bytes reach only `dropUpTo`, so nothing in them is parsed,
 * routed or counted.
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
