import type { Socket } from 'node:net';

/**
 * At most this many bytes reach Node's HTTP parser at once. The parser makes a request and a
 * response object for every request in what it is given (the edge can only drop them afterwards),
 * so this bounds what a client pipelining past the depth leaves behind: a GET is 18 bytes at the
 * least, so at most 56 objects pairs past the depth (docs/operations.md, "Pipelining").
 */
export const PARSER_SLICE_BYTES = 1024;

type Parse = (chunk: Buffer) => void;

/**
 * Feeds what `socket` sends to Node's HTTP parser a slice at a time, and stops as soon as
 * `stopped` says the connection is no longer parsed (past the pipelining depth, behind an answer
 * that closes it): the rest of the read is dropped unparsed.
 *
 * Node's parser reads the socket's handle itself (`parser.consume`) and parses a whole read, up to
 * 64 KiB, in one call: about 1,600 of the requests a flood sends, each one made into objects held
 * until the connection closes (measured: +644 MB and a 12 s `/health/live` for 1,000 connections).
 * Adding a 'data' listener makes Node give the handle back to the socket (lib/_http_server.js,
 * `generateSocketListenerWrapper`, checked on Node 24.21), and Node's own 'data' listener, which
 * hands a chunk to the parser, takes any part of one. Node asserts that the socket is not paused
 * when it is called, so a slice left when the socket pauses waits for its 'resume' (emitted before
 * any further 'data').
 */
export function parseInSlices(socket: Socket, stopped: () => boolean): void {
  const [parse, ...others] = socket.listeners('data') as Parse[];
  if (parse === undefined || others.length > 0) return;
  socket.removeListener('data', parse);
  let waiting: Buffer | undefined;
  const feed = (chunk: Buffer): void => {
    for (let offset = 0; offset < chunk.length; offset += PARSER_SLICE_BYTES) {
      if (stopped() || socket.destroyed) return;
      if (socket.isPaused()) {
        waiting = chunk.subarray(offset);
        return;
      }
      parse(chunk.subarray(offset, offset + PARSER_SLICE_BYTES));
    }
  };
  const resume = (): void => {
    const rest = waiting;
    waiting = undefined;
    if (rest !== undefined) feed(rest);
  };
  socket.on('data', (chunk: Buffer) => {
    const rest = waiting;
    waiting = undefined;
    feed(rest === undefined ? chunk : Buffer.concat([rest, chunk]));
  });
  socket.on('resume', resume);
  socket.on('pause', () => stopReads(socket));
}

/** What net.Socket keeps of its libuv handle (lib/net.js; checked on Node 24.21). */
type Handle = { reading?: boolean; readStop?: () => number };

/**
 * Stops the kernel reads of a paused socket, as Node's HTTP server does for a socket its parser
 * consumes (lib/_http_server.js, `onSocketPause`, removed when the handle is given back): else a
 * paused socket still reads up to its highWaterMark (64 KiB) plus a read into memory, and the
 * kernel's buffers no longer hold what a flood sends. Resuming starts the reads again
 * (net.Socket's `_read`, as `reading` is false).
 */
function stopReads(socket: Socket): void {
  const handle = (socket as Socket & { _handle?: Handle | null })._handle;
  if (handle?.reading !== true || socket.destroyed) return;
  handle.reading = false;
  handle.readStop?.();
}
