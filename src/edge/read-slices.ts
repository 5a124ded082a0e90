import type { Socket } from 'node:net';
import { takeParserFeed } from './internals';

/**
 * At most this many bytes reach Node's HTTP parser at once. The parser makes a request and a
 * response object for every request in what it is given (the edge can only drop them afterwards),
 * so this bounds what a client pipelining past the depth leaves behind: a GET is 18 bytes at the
 * least, so at most 56 objects pairs past the depth (docs/operations.md, "Pipelining").
 */
const PARSER_SLICE_BYTES = 1024;

/**
 * Feeds what `socket` sends to Node's HTTP parser a slice at a time, and stops as soon as
 * `stopped` says the connection is no longer parsed (past the pipelining depth, behind an answer
 * that closes it): the rest of the read is dropped unparsed.
 *
 * Node's parser reads the socket's handle itself (`parser.consume`) and parses a whole read, up to
 * 64 KiB, in one call: about 1,600 of the requests a flood sends, each one made into objects held
 * until the connection closes (measured: +644 MB and a 12 s `/health/live` for 1,000 connections).
 * Taking Node's own feed (takeParserFeed) gives the handle back to the socket, and the feed takes
 * any part of a read. Node asserts that the socket is not paused when the feed is called, so a
 * slice left when the socket pauses waits for its 'resume' (emitted before any further 'data').
 */
export function parseInSlices(socket: Socket, stopped: () => boolean): void {
  const parse = takeParserFeed(socket);
  if (parse === undefined) return;
  let waiting: Buffer | undefined;
  const feed = (chunk: Buffer): void => {
    for (let offset = 0; offset < chunk.length; offset += PARSER_SLICE_BYTES) {
      if (stopped() || socket.destroyed) return;
      if (socket.isPaused()) {
        waiting = chunk.subarray(offset);
        return;
      }
      const end = offset + PARSER_SLICE_BYTES;
      // An ordinary request's read fits one slice: given whole, with no view made of it.
      parse(offset === 0 && end >= chunk.length ? chunk : chunk.subarray(offset, end));
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
  // A paused socket reads on until its stream holds its highWaterMark, then Node stops the reads
  // itself (net.Socket's push returning false) and starts them again on resume.
  socket.on('resume', resume);
}
