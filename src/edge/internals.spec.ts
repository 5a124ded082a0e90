import { once } from 'node:events';
import { fstatSync } from 'node:fs';
import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { CHECKED_ON } from '../common/platform-internals';
import { listenOnLoopback, sentRaw } from '../testing/http';
import { listenerFd } from './accept-queue';
import { beforeHead, detachParser, parseNoFurtherRequests } from './connection';
import { checkTimeoutsEvery } from './edge';
import { closeListener } from './shutdown';
import { responseOn } from './socket-answers';

type Handled = { request: IncomingMessage; response: ServerResponse };

/**
 * The private or undocumented Node properties the edge keeps beside their one use, checked on a
 * real http.Server and its sockets: on a version where one has moved, its test fails.
 */
describe(`The edge's own internals of Node ${CHECKED_ON.node}`, () => {
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

  /** A raw client that has sent `head`, and the request and response its handler got. */
  const sent = async (head: string) => {
    const client = await sentRaw(server, port, head);
    return { client, at: handled[handled.length - 1] };
  };
  const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

  it('`connectionsCheckingInterval`: a number Node keeps on the server', () => {
    expect(() => checkTimeoutsEvery(server, 250)).not.toThrow();
    expect(() => checkTimeoutsEvery({} as Server, 250)).toThrow('`connectionsCheckingInterval`');
  });

  it("net.Server's `close` on an http.Server: idle connections stay open", async () => {
    const client: Socket = connect({ port, host: '127.0.0.1' });
    client.on('error', () => undefined);
    const arrived = once(server, 'request');
    client.write(GET);
    await arrived;
    handled[0].response.end('first');
    await once(client, 'data');
    closeListener(server, () => undefined);
    expect(server.listening).toBe(false);
    const answered = once(client, 'data');
    client.write(GET);
    await once(server, 'request');
    handled[1].response.end('second');
    const [chunk] = (await answered) as [Buffer];
    expect(chunk.toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*second$/);
    client.destroy();
  });

  it("`_handle.fd`: the listening socket's descriptor", () => {
    expect(fstatSync(listenerFd(server)!).isSocket()).toBe(true);
    server.close();
    expect(listenerFd(server)).toBeUndefined();
  });

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
    const called = new Promise<void>((resolve) => (sockets[0].destroySoon = resolve));
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
});
