import { connect, Socket } from 'node:net';

/** One response as read off the wire. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
}

interface ConnectOptions {
  host?: string;
  port: number;
  /** Local address to connect from (any 127.0.0.N, so one test can be many clients). */
  localAddress?: string;
  /** Never read what the server sends (a client that does not consume its answers). */
  unread?: boolean;
}

/**
 * A raw TCP connection: any bytes written, everything the peer sends kept. The one socket helper
 * of the tests: exchange() and tryConnect() below, the shutdown test's requests left in flight, the
 * logging test's client that leaves early, the Redis probe.
 */
export class RawConnection {
  readonly socket: Socket;
  /** Resolves once the connection has closed, whichever side closed it (or failed to connect). */
  readonly closed: Promise<void>;
  private readonly chunks: Buffer[] = [];
  private ended = false;

  constructor({ host = '127.0.0.1', port, localAddress, unread = false }: ConnectOptions) {
    this.socket = connect({ host, port, localAddress });
    if (!unread) this.socket.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    this.socket.on('error', () => undefined); // the close that follows tells
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.ended = true;
        resolve();
      }),
    );
  }

  /** A connection once it is established; rejects with the connection error. */
  static async open(options: ConnectOptions): Promise<RawConnection> {
    const connection = new RawConnection(options);
    await new Promise((resolve, reject) => {
      connection.socket.once('connect', resolve);
      connection.socket.once('error', reject);
    });
    return connection;
  }

  /** Everything received so far. */
  get received(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** Resolves once the bytes are written (or could not be: the close tells). */
  write(bytes: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(bytes, () => resolve()));
  }

  /**
   * Resolves once what was received satisfies `done`; rejects if the connection closes first or
   * after `timeoutMs`.
   */
  until(done: (received: Buffer) => boolean, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const stop = (error?: string) => {
        clearTimeout(timer);
        this.socket.off('data', check);
        this.socket.off('close', closed);
        if (error) reject(new Error(`${error}; received ${JSON.stringify(String(this.received))}`));
        else resolve();
      };
      const check = () => {
        if (done(this.received)) stop();
      };
      const closed = () => stop('The connection closed before the awaited bytes');
      const timer = setTimeout(() => stop(`No awaited bytes after ${timeoutMs} ms`), timeoutMs);
      this.socket.on('data', check);
      this.socket.on('close', closed);
      check();
      if (this.ended) closed();
    });
  }

  /**
   * Resolves once the peer has closed the connection, as a client that never reads finds out: by
   * writing (an empty line, which HTTP/1.1 ignores between requests) every `everyMs` until a write
   * fails. A fixed pace, not a wait for a state: a client that reads nothing learns of the close
   * only from a write.
   */
  async closedUnderWrites(everyMs = 250): Promise<void> {
    while (!this.ended) {
      this.socket.write('\r\n');
      await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, everyMs))]);
    }
  }

  /** Destroys the socket at once (a client hanging up). */
  close(): void {
    this.socket.destroy();
  }
}

/**
 * The bytes of an HTTP/1.1 request's head, `Host: 127.0.0.1` first, then `headers` in order,
 * then `body` as given: nothing is worked out, so a test may declare a length it never sends.
 * Requests broken on purpose (a bad method, a header without a colon) are written by hand.
 */
export function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  body = '',
): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Connects and hangs up: 'connected', or the connection error's code (ECONNREFUSED: none listens). */
export async function tryConnect(port: number, host = '127.0.0.1'): Promise<string> {
  try {
    (await RawConnection.open({ host, port })).close();
    return 'connected';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

interface ExchangeOptions extends ConnectOptions {
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
export async function exchange(bytes: Buffer, options: ExchangeOptions): Promise<Exchange> {
  const { abort = false, timeoutMs = 10_000 } = options;
  const connection = new RawConnection(options);
  let timer: NodeJS.Timeout | undefined;
  const written = connection.write(bytes);
  const closed = await Promise.race([
    connection.closed.then(() => true),
    ...(abort ? [written.then(() => true)] : []),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  clearTimeout(timer);
  connection.close();
  return { received: connection.received, closed };
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
