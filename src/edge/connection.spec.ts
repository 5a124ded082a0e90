import { once } from 'node:events';
import { createServer, IncomingMessage, request, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Connection, type Edge } from './connection';
import { installEdge } from './edge';
import { EDGE_TEST_SETTINGS } from '../testing/edge-settings';
import { listenOnLoopback } from '../testing/http';
import { ErrorResponses } from '../common/error-responses';

/**
 * What each connection holds decides the shutdown: a partial head is answered 408, a connection
 * that never sent anything is closed, and at SHUTDOWN_TIMEOUT_MS the exit is 1 only if a request
 * was being handled. Checked on a real server's sockets, in this process.
 */
describe('Connection.holds and the requests waiting', () => {
  const handled: Array<{ request: IncomingMessage; response: ServerResponse }> = [];
  const server = createServer((req, response) => handled.push({ request: req, response }));
  const edge = installEdge(
    { api: server },
    {
      ...EDGE_TEST_SETTINGS,
      errors: new ErrorResponses([]),
      observers: [],
      trustProxy: () => false,
    },
  );
  let port: number;
  const holds = () =>
    [...edge.connections].map((connection) => [connection.holds(), connection.waiting]);

  beforeAll(async () => {
    port = await listenOnLoopback(server);
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('tell a request arriving, one being handled, and an answered connection apart', async () => {
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
    client.destroy();
  });

  it('tell a connection that sent part of a head from one that sent nothing', async () => {
    const silent = connect({ port, host: '127.0.0.1' });
    await once(silent, 'connect');
    const partial = connect({ port, host: '127.0.0.1' });
    await once(partial, 'connect');
    partial.write('GET / HTTP/1.1\r\nHo');
    const of = (client: Socket) =>
      [...edge.connections].find((connection) => connection.socket.remotePort === client.localPort);
    // The server has read the bytes once its side of the connection counts them.
    while ((of(partial)?.socket.bytesRead ?? 0) === 0)
      await new Promise((resolve) => setImmediate(resolve));
    expect([of(silent)!.holds(), of(partial)!.holds()]).toEqual(['nothing', 'headers']);
    silent.destroy();
    partial.destroy();
  });
});

/**
 * A request answered whole must not outlive its answer: through Express's `req.res` it holds the
 * whole answer, and one kept per connection survived the young generation's collections under load
 * (bench/README.md, "Resident memory"). One whose body still arrives is kept, to be told apart.
 */
describe('Connection.answered', () => {
  // A full collection on demand (Node's documented way to reach V8's gc from a running process).
  setFlagsFromString('--expose-gc');
  const collectGarbage = runInNewContext('gc') as () => void;

  /** Answers a request on `socket`, and says whether it is still reachable once collected. */
  async function outlivesItsAnswer(connection: Connection, complete: boolean): Promise<boolean> {
    const request = new WeakRef({ socket: connection.socket, complete });
    connection.arrived(request.deref() as unknown as IncomingMessage, {} as ServerResponse, 0);
    connection.answered(request.deref() as unknown as IncomingMessage);
    // A WeakRef keeps its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    return request.deref() !== undefined;
  }

  it('keeps no request answered whole, and the last one whose body still arrives', async () => {
    const connection = new Connection(
      { bytesRead: 0 } as Socket,
      { bySocket: new WeakMap() } as Edge,
    );
    expect(await outlivesItsAnswer(connection, true)).toBe(false);
    expect(connection.answeredStillArriving()).toBe(false);
    expect(await outlivesItsAnswer(connection, false)).toBe(true);
    expect(connection.answeredStillArriving()).toBe(true);
    expect(await outlivesItsAnswer(connection, true)).toBe(false);
  });
});

describe('Connection.whenAllAnswered', () => {
  it('runs once the last request waiting is answered or dropped, whichever goes first', () => {
    const connection = new Connection(
      { bytesRead: 0, pause: () => undefined } as unknown as Socket,
      { bySocket: new WeakMap() } as Edge,
    );
    const [a, b, c] = [1, 2, 3].map((n) => ({ n, complete: true }) as unknown as IncomingMessage);
    for (const request of [a, b, c]) connection.arrived(request, {} as ServerResponse, 0);
    const then = jest.fn();
    connection.whenAllAnswered(then);
    connection.dropped(b);
    connection.answered(a);
    expect(then).not.toHaveBeenCalled();
    connection.dropped(c);
    expect(then).toHaveBeenCalledTimes(1);
  });
});
