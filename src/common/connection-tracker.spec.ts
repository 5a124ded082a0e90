import { once } from 'node:events';
import { createServer, IncomingMessage, request, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionHolds, requestsWaiting, trackConnections } from './connection-tracker';

/**
 * What each connection holds decides the exit at SHUTDOWN_TIMEOUT_MS: 1 only if a request was
 * being handled; connections with nothing, or with a request still arriving, are closed and the
 * exit is 0. Checked on a real server's sockets, in this process.
 */
describe('trackConnections, connectionHolds and requestsWaiting', () => {
  it('tell a connection holding nothing, a request arriving, and one being handled apart', async () => {
    const handled: Array<{ request: IncomingMessage; response: ServerResponse }> = [];
    const server = createServer((req, response) => handled.push({ request: req, response }));
    const open = trackConnections(server);
    // Set up once per server: the pipelining depth and the shutdown share it.
    expect(trackConnections(server)).toBe(open);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const holds = () =>
      [...open].map((socket) => [connectionHolds(socket), requestsWaiting(socket)]);
    try {
      const client = request({ port, method: 'POST', headers: { 'content-length': '10' } });
      client.on('error', () => undefined);
      client.flushHeaders();
      await once(server, 'request');
      expect(holds()).toEqual([['arriving', 1]]);
      client.end('0123456789');
      handled[0].request.resume();
      await once(handled[0].request, 'end');
      expect(holds()).toEqual([['handled', 1]]);
      handled[0].response.end('done');
      await once(handled[0].response, 'close');
      expect(holds()).toEqual([['nothing', 0]]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
