import { connect } from 'node:net';

/** One response as read off the wire. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface ExchangeOptions {
  host?: string;
  port: number;
  /** Local address to connect from (any 127.0.0.N, so one test can be many clients). */
  localAddress?: string;
  /** Destroy the connection right after writing, without waiting for an answer. */
  abort?: boolean;
  /** Give up waiting for the server to close the connection after this long. */
  timeoutMs?: number;
}

export interface Exchange {
  /** Everything the server sent before closing the connection. */
  received: Buffer;
  /** False when the server had not closed the connection after `timeoutMs`. */
  closed: boolean;
}

/**
 * Writes `bytes` on a new connection and collects what the server sends until it closes the
 * connection (send `Connection: close`). Byte-level, so anything can be sent: broken request lines,
 * invalid UTF-8, bodies that do not match their framing.
 */
export function exchange(bytes: Buffer, options: ExchangeOptions): Promise<Exchange> {
  const { host = '127.0.0.1', port, localAddress, abort = false, timeoutMs = 10_000 } = options;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port, localAddress });
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closed });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.write(bytes, () => {
      if (abort) finish(true);
    });
  });
}

function decodeChunked(data: Buffer, start: number): { body: Buffer; end: number } {
  const parts: Buffer[] = [];
  let offset = start;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd === -1) throw new Error('Truncated chunked body');
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    offset = lineEnd + 2;
    if (size === 0) return { body: Buffer.concat(parts), end: data.indexOf('\r\n', offset) + 2 };
    parts.push(data.subarray(offset, offset + size));
    offset += size + 2;
  }
}

/**
 * Splits what a server sent into responses (interim 1xx ones left out). `firstIsHead`: the first
 * response answers a HEAD request, so it has no body whatever its Content-Length says. Throws on
 * bytes that are not HTTP responses.
 */
export function parseResponses(data: Buffer, firstIsHead = false): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  let head = firstIsHead;
  while (offset < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', offset);
    if (headEnd === -1)
      throw new Error(`Not an HTTP response: ${data.subarray(offset).toString('latin1')}`);
    const [statusLine, ...lines] = data.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) throw new Error(`Not a status line: ${statusLine}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    let bodyStart = headEnd + 4;
    let body: Buffer = Buffer.alloc(0);
    if (status >= 200 && status !== 204 && status !== 304 && !head) {
      if (headers['transfer-encoding'] === 'chunked') {
        ({ body, end: bodyStart } = decodeChunked(data, bodyStart));
        offset = bodyStart;
      } else {
        const length =
          headers['content-length'] === undefined
            ? data.length - bodyStart
            : Number(headers['content-length']);
        body = data.subarray(bodyStart, bodyStart + length);
        offset = bodyStart + length;
      }
    } else {
      offset = bodyStart;
    }
    if (status >= 200) {
      responses.push({ status, headers, body });
      head = false;
    }
  }
  return responses;
}
