import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Server } from 'node:http';

/** Private `_handle.fd` (-1 where none): no public API gives the listener's descriptor. */
export function listenerFd(server: Server): number | undefined {
  const fd = (server as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** The listener stays open until this long passes without a new connection (acceptQueued). */
const QUIET_MS = 20;

/** The accept queue's length: the `rx_queue` of the listener's line in /proc/net/tcp (Linux). */
export function queuedInKernel(server: Server): number | undefined {
  const fd = listenerFd(server);
  if (fd === undefined) return undefined;
  try {
    const inode = String(fstatSync(fd).ino);
    const queued = queueInTable('/proc/net/tcp', inode) ?? queueInTable('/proc/net/tcp6', inode);
    return Number.isNaN(queued) ? undefined : queued;
  } catch {
    return undefined;
  }
}

/**
 * Read only as far as the listener's line: the kernel writes listeners first, and reading all of
 * /proc/net/tcp took 80 ms at 40,000 sockets, while a connection arriving meanwhile was reset.
 */
function queueInTable(table: string, inode: string): number | undefined {
  const fd = openSync(table, 'r');
  try {
    const buffer = Buffer.allocUnsafe(16 * 1024);
    let rest = '';
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      const lines = (rest + buffer.toString('latin1', 0, read)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode …
        const fields = line.trim().split(/\s+/);
        if (fields[0] === 'sl') continue;
        if (fields[3] !== '0A') return undefined; // past the listeners (st 0A: TCP_LISTEN)
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
