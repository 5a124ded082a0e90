import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Server } from 'node:http';
import { listenerFd } from '../common/node-internals';

/** The listener stays open until this long passes without a new connection (acceptQueued). */
const QUIET_MS = 20;
/** Linux's tables of TCP sockets: a listener's line holds the length of its accept queue. */
const SOCKET_TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
/** How much of a table one read takes: the kernel writes the listeners' lines first. */
const READ_BYTES = 16 * 1024;
/** The state column of a listening socket (TCP_LISTEN). */
const LISTENING = '0A';

/**
 * How many connections wait in the kernel's accept queue of `server`'s listener: on Linux, the
 * `rx_queue` of the line of /proc/net/tcp or tcp6 whose inode is the listener's (for a listening
 * socket the kernel writes its queue's length there). Undefined where that cannot be read:
 * another system, no /proc, a server not listening.
 */
export function queuedInKernel(server: Server): number | undefined {
  const fd = listenerFd(server);
  if (fd === undefined) return undefined;
  try {
    const inode = String(fstatSync(fd).ino);
    for (const table of SOCKET_TABLES) {
      const queued = queueInTable(table, inode);
      if (queued !== undefined) return Number.isNaN(queued) ? undefined : queued;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The queue of the listener `inode` in `table`, read only as far as its line: the kernel writes
 * a table as it is read, listening sockets first, so the count is the kernel's of a moment ago,
 * not of the whole table's time (reading all of /proc/net/tcp took 18 ms at 9,000 sockets and
 * 80 ms at 40,000, while a connection arriving meanwhile was reset by the close that followed).
 */
function queueInTable(table: string, inode: string): number | undefined {
  const fd = openSync(table, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let rest = '';
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      const lines = (rest + buffer.toString('latin1', 0, read)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode …
        const fields = line.trim().split(/\s+/);
        if (fields[0] === 'sl') continue;
        if (fields[3] !== LISTENING) return undefined;
        if (fields[9] === inode) return parseInt(fields[4].split(':')[1], 16);
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Resolves once the kernel's accept queue is empty and QUIET_MS have passed without a new
 * connection (or at `deadline`), so that the caller closes the listener at once: closing a
 * listener resets every connection still in its queue, whose client has already sent its request.
 *
 * - The queue is judged by turns of the event loop, not by time: libuv takes one connection per
 *   turn (measured on Node 24.21, libuv 1.52: ten queued connections took ten turns), and a turn
 *   that also serves busy connections takes tens of milliseconds on a loaded machine (40-50 ms
 *   measured: 50 busy keep-alive clients on a shared core). So the look runs in setImmediate,
 *   right after a poll, and a turn whose poll took a connection is never the last.
 * - A poll that took nothing cannot see a connection that arrived while the rest of its turn ran
 *   (the requests it read being answered): on Linux the kernel's own count is read just before
 *   resolving (queuedInKernel), elsewhere the poll's word is taken.
 */
export function acceptQueued(server: Server, deadline: number): Promise<void> {
  let lastAt = Date.now();
  let tookOne = false;
  // A connection over the ceiling (server.maxConnections) is taken from the queue too, and closed.
  const took = (): void => {
    tookOne = true;
    lastAt = Date.now();
  };
  server.on('connection', took).on('drop', took);
  return new Promise<void>((resolve) => {
    const afterNextPoll = (): void => {
      tookOne = false;
      setImmediate(look);
    };
    const look = (): void => {
      const now = Date.now();
      const empty = !tookOne && now - lastAt >= QUIET_MS && (queuedInKernel(server) ?? 0) === 0;
      if (empty || now >= deadline) {
        server.off('connection', took).off('drop', took);
        resolve();
      } else setTimeout(afterNextPoll, Math.max(1, QUIET_MS - (now - lastAt)));
    };
    setTimeout(afterNextPoll, QUIET_MS);
  });
}
