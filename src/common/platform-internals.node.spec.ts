import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import {
  AnswerHeader,
  beforeHead,
  CHECKED_ON,
  fixedHeaders,
  detachParser,
  onDestroySoon,
  responseOn,
  parseNoFurtherRequests,
  setFixedHeaders,
} from './platform-internals';
import { listenOnLoopback } from '../testing/http';

type Handled = { request: IncomingMessage; response: ServerResponse };

/**
 * Each private or undocumented property the edge relies on, checked on a real http.Server, its
 * sockets and a real Express application: on a version where one has moved, the test named after
 * it fails.
 */
describe(`The internals of Node ${CHECKED_ON.node}`, () => {
  let server: Server;
  let port: number;
  const handled: Handled[] = [];
  const sockets: Socket[] = [];

  beforeEach(async () => {
    handled.length = sockets.length = 0;
    server = createServer((request, response) => handled.push({ request, response }));
    server.on('connection', (socket: Socket) => {
      sockets.push(socket);
    });
    port = await listenOnLoopback(server);
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  /** A raw client that has sent `head` and whose request the server has handed to its handler. */
  async function sent(head: string): Promise<{ client: Socket; at: Handled }> {
    const client = connect({ port, host: '127.0.0.1' });
    client.on('error', () => undefined);
    const arrived = once(server, 'request');
    client.write(head);
    await arrived;
    return { client, at: handled[handled.length - 1] };
  }
  const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

  it('`socket.parser`: Node parses the reads itself, request after request (`_consumed`)', async () => {
    const { client, at } = await sent(GET);
    at.response.end();
    const next = once(server, 'request');
    client.write(GET);
    await next;
    const parser = (sockets[0] as unknown as { parser?: { _consumed?: boolean } }).parser;
    expect(parser?._consumed).toBe(true);
  });

  it('`parser.onIncoming`: -1 stops the parse of a read at the next request, as a clientError', async () => {
    const errors: Array<{ code?: string; bytesParsed?: number }> = [];
    server.on('clientError', (error: { code?: string; bytesParsed?: number }) => {
      errors.push(error);
    });
    server.prependListener('request', (request: IncomingMessage) => {
      if (handled.length === 2) parseNoFurtherRequests(request.socket);
    });
    const client = connect({ port, host: '127.0.0.1' });
    client.on('error', () => undefined);
    client.write(GET.repeat(100));
    while (errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(handled).toHaveLength(3);
    expect(errors[0].code).toBe('HPE_CB_HEADERS_COMPLETE');
    expect(errors[0].bytesParsed).toBeGreaterThan(GET.length * 3);
    expect(errors[0].bytesParsed).toBeLessThanOrEqual(GET.length * 4);
    client.destroy();
  });

  it('`_httpMessage`: the response being written on a socket', async () => {
    const { at } = await sent(GET);
    expect(responseOn(at.request.socket)).toBe(at.response);
  });

  it('`destroySoon`: called once an answer with `Connection: close` is sent', async () => {
    const { at } = await sent(GET);
    const called = new Promise<void>((resolve) => onDestroySoon(sockets[0], resolve));
    at.response.setHeader('Connection', 'close');
    at.response.end();
    await called;
  });

  it("`_implicitHeader`: a head written by `end` goes through the response's own `writeHead`", async () => {
    const { client, at } = await sent(GET);
    const answered = once(client, 'data');
    beforeHead(at.response, () => at.response.setHeader('X-Seen', 'yes'));
    at.response.end('done');
    const [chunk] = (await answered) as [Buffer];
    expect(chunk.toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*X-Seen: yes\r\n/);
  });

  it("the parser's 'data' and 'end' listeners: once detached, nothing reaches the parser", async () => {
    const { client, at } = await sent(GET);
    at.response.end();
    detachParser(sockets[0]);
    const read = once(sockets[0], 'data');
    client.write(GET);
    await read;
    await new Promise(setImmediate);
    expect(handled).toHaveLength(1);
  });

  /** The head a response writes once its handler sets headers with `set`, then ends it. */
  async function headWritten(set: (response: ServerResponse) => void): Promise<string> {
    const { client, at } = await sent(GET);
    set(at.response);
    const answer = once(client, 'data');
    at.response.end('x');
    const [chunk] = (await answer) as [Buffer];
    client.destroy();
    return chunk.toString().replace(/\r\nDate: [^\r]*/, '');
  }

  it("`kOutHeaders`: AnswerHeader stores a header as setHeader does, in Node's order", async () => {
    const fixed = fixedHeaders([
      ['X-Content-Type-Options', 'nosniff'],
      ['Access-Control-Allow-Origin', '*'],
    ]);
    const viaSetHeader = await headWritten((response) => {
      response.setHeader('X-Request-Id', 'a');
      response.setHeader('X-Content-Type-Options', 'nosniff');
      response.setHeader('Access-Control-Allow-Origin', '*');
      response.setHeader('X-Request-Id', 'b');
    });
    const viaAnswerHeader = await headWritten((response) => {
      // Stored in `kOutHeaders` itself: setHeader is the fallback where Node keeps it elsewhere.
      const setHeader = jest.spyOn(response, 'setHeader');
      new AnswerHeader('X-Request-Id').setChecked(response, 'a');
      setFixedHeaders(response, fixed);
      new AnswerHeader('X-Request-Id').setChecked(response, 'b');
      expect(response.getHeaders()).toEqual({
        'x-request-id': 'b',
        'x-content-type-options': 'nosniff',
        'access-control-allow-origin': '*',
      });
      expect(response.hasHeader('X-REQUEST-ID')).toBe(true);
      expect(setHeader).not.toHaveBeenCalled();
    });
    expect(viaAnswerHeader).toBe(viaSetHeader);
    expect(viaAnswerHeader).toMatch(
      /^HTTP\/1\.1 200 OK\r\nX-Request-Id: b\r\nX-Content-Type-Options/,
    );
  });

  it('AnswerHeader: setHeader and removeHeader see what it set, and it replaces theirs', async () => {
    const head = await headWritten((response) => {
      response.setHeader('x-ratelimit-limit', '1');
      new AnswerHeader('X-RateLimit-Limit').setChecked(response, '2');
      new AnswerHeader('Retry-After').setChecked(response, '3');
      response.removeHeader('retry-after');
    });
    expect(head).toContain('\r\nX-RateLimit-Limit: 2\r\n');
    expect(head).not.toMatch(/x-ratelimit-limit|Retry-After/);
  });

  it('AnswerHeader checks as setHeader does: a bad name at once, a bad value when fixed, and no header once the head is sent', async () => {
    expect(() => new AnswerHeader('Bad Name')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_HTTP_TOKEN' }),
    );
    const header = new AnswerHeader('X-Request-Id');
    expect(() => header.withValue('a\r\nSet-Cookie: x')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_CHAR' }),
    );
    const { client, at } = await sent(GET);
    at.response.end();
    expect(() => header.setChecked(at.response, 'a')).toThrow(
      expect.objectContaining({ code: 'ERR_HTTP_HEADERS_SENT' }),
    );
    expect(() => setFixedHeaders(at.response, [header.withValue('a')])).toThrow(
      expect.objectContaining({ code: 'ERR_HTTP_HEADERS_SENT' }),
    );
    client.destroy();
  });
});
