import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { toErrorBody } from './error-body';

/** The status Node itself would answer for a request it could not parse. */
function statusFor(error: NodeJS.ErrnoException): number {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 431;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * A request Node cannot parse (a broken request line, a bad header, headers over the size limit)
 * never reaches Express; Node answers it with a bare status line. Answer it with the contract's
 * error body instead, then close the connection, as Node does.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = statusFor(error);
    const { statusCode, message } = toErrorBody(
      Object.assign(new Error(error.message), { status }),
    );
    const body = JSON.stringify({ statusCode, message });
    socket.end(
      `HTTP/1.1 ${statusCode} ${message}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
