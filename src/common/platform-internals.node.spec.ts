import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AnswerHeader, CHECKED_ON, fixedHeaders, setFixedHeaders } from './platform-internals';
import { listenOnLoopback, sentRaw } from '../testing/http';

type Handled = { request: IncomingMessage; response: ServerResponse };

/**
 * Each private Node property the request path shares (the edge's own: src/edge/internals.spec.ts),
 * checked on a real http.Server: on a version where one has moved, the test named after it fails.
 */
describe(`The internals of Node ${CHECKED_ON.node}`, () => {
  let server: Server;
  let port: number;
  const handled: Handled[] = [];

  beforeEach(async () => {
    handled.length = 0;
    server = createServer((request, response) => handled.push({ request, response }));
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
