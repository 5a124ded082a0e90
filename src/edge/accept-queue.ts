import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Server } from 'node:http';
import { setImmediate as afterNextPoll, setTimeout as sleep } from 'node:timers/promises';

/** Private `_handle.fd` (-1 where none): no public API gives the listener's descriptor. */
export function listenerFd(server: Server): number | undefined {
  const fd = (server as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** The listener stays open until this long passes without a new connection (acceptQueued). */
const QUIET_MS = 20;
const SOCKET_TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
const READ_BYTES = 16 * 1024;
/** The state column of a listening socket (TCP_LISTEN). */
const LISTENING = '0A';

/** The accept queue's length: the `rx_queue` of the listener's line in /proc/net/tcp (Linux). */
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
 * Read only as far as the listener's line: the kernel writes listeners first, and reading all of
 * /proc/net/tcp took 80 ms at 40,000 sockets, while a connection arriving meanwhile was reset.
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
 * Resolves once the accept queue is empty (or at `deadline`): closing a listener resets every
 * connection still queued. libuv takes one connection per loop turn (Node 24.21), so the look runs
 * right after a poll (setImmediate), and the kernel's own count is read last (queuedInKernel).
 */
export async function acceptQueued(server: Server, deadline: number): Promise<void> {
  let lastAt = Date.now();
  let taken = 0;
  // A connection over the ceiling (server.maxConnections) is taken from the queue too, and closed.
  const took = (): void => {
    taken += 1;
    lastAt = Date.now();
  };
  server.on('connection', took).on('drop', took);
  for (let wait = QUIET_MS; ;) {
    await sleep(wait);
    const before = taken;
    await afterNextPoll();
    const now = Date.now();
    const empty =
      taken === before && now - lastAt >= QUIET_MS && (queuedInKernel(server) ?? 0) === 0;
    if (empty || now >= deadline) break;
    wait = Math.max(1, QUIET_MS - (now - lastAt));
  }
  server.off('connection', took).off('drop', took);
}
