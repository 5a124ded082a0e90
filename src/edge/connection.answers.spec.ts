import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { installEdge } from './edge';
import { EDGE_TEST_SETTINGS } from '../testing/edge-settings';
import { listenOnLoopback } from '../testing/http';
import { ErrorResponses } from '../common/error-responses';

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

/**
 * Whether the shutdown's `Connection: close` goes out is decided when an answer's head is written,
 * on a real server under the edge: a request that arrived while answers closed their connections
 * (the drain delay) and is answered after that keeps its connection, so its client does not
 * reconnect just as the listener is about to close.
 */
describe('closeIfShutdownStillSays', () => {
  const waiting: ServerResponse[] = [];
  const server = createServer((_request, response) => waiting.push(response));
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
  const clients: Socket[] = [];

  /** Sends `bytes` on a new connection; resolves once the server holds `count` unanswered. */
  async function sent(bytes: string, count: number): Promise<Socket> {
    const client = connect({ port, host: '127.0.0.1' }).on('error', () => undefined);
    clients.push(client);
    client.write(bytes);
    while (waiting.length < count) await once(server, 'request');
    return client;
  }
  /** What `client` receives until `done` says it is whole. */
  async function received(client: Socket, done: (text: string) => boolean): Promise<string> {
    let text = '';
    while (!done(text)) text += String((await once(client, 'data'))[0]);
    return text;
  }
  const answers = (n: number) => (text: string) => text.split('HTTP/1.1 200').length > n;

  beforeAll(async () => {
    port = await listenOnLoopback(server);
  });
  beforeEach(() => (waiting.length = 0));
  afterAll(() => {
    for (const client of clients) client.destroy();
    server.closeAllConnections();
    server.close();
  });

  it('keeps the connection of a request answered once answers no longer close theirs', async () => {
    edge.closeAnswers = true;
    const client = await sent(GET, 1);
    edge.closeAnswers = false;
    waiting[0].end('answered after the drain delay');
    const text = await received(client, answers(1));
    expect(text).not.toMatch(/\r\nConnection: close\r\n/i);
    expect(text).toMatch(/\r\nConnection: keep-alive\r\n/i);
  });

  it('closes it when they still do, on the answer to the last request pipelined', async () => {
    edge.closeAnswers = true;
    const client = await sent(GET + GET, 2);
    const closed = once(client, 'end');
    waiting[0].end('first');
    waiting[1].end('second');
    const [first, second] = (await received(client, answers(2))).split(/(?=HTTP\/1\.1 200)/);
    expect(first).toMatch(/\r\nConnection: keep-alive\r\n/i);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    await closed;
    edge.closeAnswers = false;
  });
});
