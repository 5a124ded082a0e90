import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { answerOnSocket } from './socket-answers';
import { connectionOf } from './connection';
import { isLingering } from './lingering-close';

/** Node's own statuses for what its HTTP parser refuses; anything else is a malformed request. */
const STATUS_BY_CODE: Partial<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  // A request line whose version is not HTTP/1.x (`HTTP/1.2`, `HTTP/3.0`, `HTTP/1`).
  HPE_INVALID_VERSION: 505,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * The server's `clientError` listener: a request Node's HTTP parser refuses (a broken request
 * line, an unknown method, bad chunked encoding, headers too large, a timeout) never reaches
 * Express, and Node would answer it with a bare status line and reset what follows. This answers
 * it with the API's error body and a lingering close (answerOnSocket). A connection already
 * closing with a lingering close keeps its own bounds: Node's request timeout does not cut it.
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
