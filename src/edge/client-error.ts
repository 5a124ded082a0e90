import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { answerOnSocket } from './socket-answers';
import { connectionOf, isLingering } from './connection';

/** Node's own statuses for what its HTTP parser refuses; anything else is a malformed request. */
const STATUS_BY_CODE: Partial<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  // A request line whose version is not HTTP/1.x (`HTTP/1.2`, `HTTP/3.0`, `HTTP/1`).
  HPE_INVALID_VERSION: 505,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * What Node's parser refuses never reaches Express, and Node would answer it with a bare status
 * line: this sends the error body. A lingering connection keeps its own bounds.
 */
export function answerClientError(
  error: Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number },
  socket: Duplex,
): void {
  if (isLingering(socket as Socket)) {
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') socket.destroy();
    return;
  }
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // The parser stopped at a request after one whose answer closes the connection (markClosing):
  // not the client's error, and not answered; nothing more it sends is parsed.
  const connection = connectionOf(socket as Socket);
  if (error.code === 'HPE_CB_HEADERS_COMPLETE' && connection?.nothingMoreToParse()) {
    connection.stopParsing();
    return;
  }
  answerOnSocket(socket as Socket, STATUS_BY_CODE[error.code ?? ''] ?? 400, {
    packet: error.rawPacket,
    parsed: error.bytesParsed,
    overflow: error.code === 'HPE_HEADER_OVERFLOW',
  });
}
