import { once } from 'node:events';
import { fstatSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { CHECKED_ON } from '../common/platform-internals';
import { listenOnLoopback } from '../testing/http';
import { listenerFd } from './accept-queue';
import { checkTimeoutsEvery } from './edge';
import { closeListener } from './shutdown';

/** The private Node properties the edge keeps beside their one use, checked on a real server. */
describe(`The edge's own internals of Node ${CHECKED_ON.node}`, () => {
  let server: Server;
  let port: number;
  const responses: ServerResponse[] = [];

  beforeEach(async () => {
    responses.length = 0;
    server = createServer((_request, response) => responses.push(response));
    port = await listenOnLoopback(server);
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

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
    responses[0].end('first');
    await once(client, 'data');
    closeListener(server, () => undefined);
    expect(server.listening).toBe(false);
    const answered = once(client, 'data');
    client.write(GET);
    await once(server, 'request');
    responses[1].end('second');
    const [chunk] = (await answered) as [Buffer];
    expect(chunk.toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*second$/);
    client.destroy();
  });

  it("`_handle.fd`: the listening socket's descriptor", () => {
    expect(fstatSync(listenerFd(server)!).isSocket()).toBe(true);
    server.close();
    expect(listenerFd(server)).toBeUndefined();
  });
});
