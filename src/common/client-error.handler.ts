import { HttpException } from '@nestjs/common';
import { ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { toErrorBody } from './error-body';

/** Node's own statuses for what its HTTP parser refuses; anything else is a malformed request. */
const STATUS_BY_CODE: Partial<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * The server's `clientError` listener: a request Node's HTTP parser refuses (a broken request
 * line, an unknown method, bad chunked encoding, headers too large, a timeout) never reaches
 * Express, and Node would answer it with a bare status line. This answers it with the API's error
 * body instead, then closes the connection, as Node does.
 */
export function answerClientError(
  error: Error & { code?: string; rawPacket?: Buffer },
  socket: Duplex,
): void {
  // A response already started on this connection must not be corrupted by a second status line.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status = STATUS_BY_CODE[error.code ?? ''] ?? 400;
  const { statusCode, message } = toErrorBody(
    new HttpException(STATUS_CODES[status] ?? '', status),
  );
  const body = JSON.stringify({ statusCode, message });
  // The answer to a HEAD request has no body, even a refused one.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      (head ? '' : body),
    () => socket.destroy(),
  );
}
