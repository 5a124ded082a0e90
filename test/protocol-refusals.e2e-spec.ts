import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { INVALID, VALID } from '../src/testing/bodies';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { curlRequests } from '../src/testing/edge-clients';
import { nextClient } from '../src/testing/clients';
import { remaining } from '../src/testing/daily-limit';
import { depreciate, send } from '../src/testing/http';
import { exchange, parseResponses } from '../src/testing/raw-http';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

/**
 * What the request's framing says that the service does not speak (docs/contract.md, "Errors"):
 * a content coding it does not decode, an HTTP version other than 1.0 or 1.1, a path too long to
 * echo whole. The built server as a process, raw sockets, Node's http and curl.
 */
const UNSUPPORTED_CODING = {
  statusCode: 415,
  message: 'Content-Encoding must be one of gzip, deflate, br or identity',
};
const VERSION_NOT_SUPPORTED = { statusCode: 505, message: 'HTTP Version Not Supported' };
const LIMIT = 1000;

describe('codings and versions the service does not speak (built server)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_DAY: String(LIMIT) });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it.each<[string, string | string[]]>([
    ['an unknown coding', 'zstd'],
    ['a coding it does not decode', 'compress'],
    ['an empty value', ''],
    ['stacked codings', 'identity, gzip'],
    ['two headers', ['gzip', 'gzip']],
  ])('refuses %s with a 415 about the coding, before counting', async (_, coding) => {
    const from = nextClient();
    // Node's http sends an array as one header line per value.
    const headers = { 'content-encoding': coding } as unknown as Record<string, string>;
    const refused = await depreciate(server.port, { from, headers });
    expect(refused.status).toBe(415);
    expect(refused.json).toEqual(UNSUPPORTED_CODING);
    expect(refused.headers['x-ratelimit-remaining']).toBeUndefined();
    // Refused before routing, like a 413: the client's budget is whole.
    expect(remaining(await depreciate(server.port, { from }))).toBe(LIMIT - 1);
  });

  it.each<[string, (body: Buffer) => Buffer]>([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    ['identity', (body) => body],
  ])('decodes a body sent as %s and answers it, counted', async (coding, encode) => {
    const from = nextClient();
    const body = encode(Buffer.from(JSON.stringify(VALID)));
    const request =
      `POST /api/depreciate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `Content-Encoding: ${coding}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const { received } = await exchange(Buffer.concat([Buffer.from(request), body]), {
      port: server.port,
      localAddress: from,
    });
    const [answer] = parseResponses(received);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  describeWithTools(['curl'], 'with curl', () => {
    it('refuses a body curl sends as zstd with the same 415', async () => {
      const [answer] = await curlRequests(server.port, {
        body: JSON.stringify(VALID),
        headers: ['Content-Encoding: zstd'],
      });
      expect(answer).toMatchObject({ status: 415, json: UNSUPPORTED_CODING });
    });
  });

  it.each([
    ['HTTP/2.0', 'GET /health/live HTTP/2.0\r\nHost: x\r\n\r\n'],
    ['HTTP/1.2', 'GET /health/live HTTP/1.2\r\nHost: x\r\n\r\n'],
    ['HTTP/3.0', 'GET /health/live HTTP/3.0\r\nHost: x\r\n\r\n'],
    ['HTTP/0.9', 'GET /health/live HTTP/0.9\r\nHost: x\r\n\r\n'],
    ['no version (HTTP/0.9)', 'GET /health/live\r\n\r\n'],
    [
      'HTTP/2.0 with a body',
      `POST /api/depreciate HTTP/2.0\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ],
  ])('answers a request line saying %s with 505 and closes', async (_, request) => {
    const client = nextClient();
    const { received, closed } = await exchange(Buffer.from(request), {
      port: server.port,
      localAddress: client,
      timeoutMs: 5_000,
    });
    expect(closed).toBe(true);
    const answers = parseResponses(received);
    expect(answers.map(({ status }) => status)).toEqual([505]);
    expect(answers[0].headers.connection).toBe('close');
    expect(JSON.parse(answers[0].body.toString())).toEqual(VERSION_NOT_SUPPORTED);
  });

  it('keeps serving HTTP/1.0 and HTTP/1.1', async () => {
    for (const version of ['1.0', '1.1']) {
      const request = `GET /health/live HTTP/${version}\r\nHost: x\r\nConnection: close\r\n\r\n`;
      const { received } = await exchange(Buffer.from(request), { port: server.port });
      expect(parseResponses(received).map(({ status }) => status)).toEqual([200]);
    }
  });

  it('says which path it did not find in at most 200 characters', async () => {
    const long = await send({ port: server.port, path: `/${'a'.repeat(5_000)}` });
    expect(long.status).toBe(404);
    // 'Cannot GET /' (12) + 187 letters + the ellipsis: 200.
    expect(long.json).toEqual({ statusCode: 404, message: `Cannot GET /${'a'.repeat(187)}…` });
    const short = await send({ port: server.port, path: '/x' });
    expect(short.json).toEqual({ statusCode: 404, message: 'Cannot GET /x' });
  });

  it('cuts the 404 of a raw request line near the 16 KiB header limit too', async () => {
    const path = `/${'b'.repeat(15_000)}`;
    const request = `DELETE ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const { received } = await exchange(Buffer.from(request), { port: server.port });
    const [answer] = parseResponses(received);
    expect(answer.status).toBe(404);
    const { message } = JSON.parse(answer.body.toString()) as { message: string };
    expect(message).toBe(`Cannot DELETE /${'b'.repeat(184)}…`);
    expect(message).toHaveLength(200);
  });
});

/** A raw request on a new connection from `from`, and the answers to it. */
async function rawAnswers(port: number, request: string, from = nextClient()) {
  const { received } = await exchange(Buffer.from(request), { port, localAddress: from });
  return parseResponses(received, request.startsWith('HEAD '));
}

const DEPRECIATE_HEAD = (extra: string) =>
  `POST /api/depreciate HTTP/1.1\r\n${extra}Content-Type: application/json\r\n` +
  `Content-Length: ${JSON.stringify(VALID).length}\r\nConnection: close\r\n\r\n${JSON.stringify(VALID)}`;

describe('the request target and its Host lines (built server)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_DAY: String(LIMIT) });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it.each([
    [
      'GET /health, two hosts',
      'GET /health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n',
    ],
    [
      'GET /health, the same host twice',
      'GET /health HTTP/1.1\r\nHost: a.example\r\nhost: a.example\r\nConnection: close\r\n\r\n',
    ],
    [
      'GET /health over HTTP/1.0',
      'GET /health HTTP/1.0\r\nHost: a.example\r\nHost: b.example\r\n\r\n',
    ],
    ['POST /api/depreciate', DEPRECIATE_HEAD('Host: a.example\r\nHost: b.example\r\n')],
  ])('answers two Host lines (%s) with the 400 body, uncounted', async (_, request) => {
    const from = nextClient();
    const answers = await rawAnswers(server.port, request, from);
    expect(answers.map(({ status }) => status)).toEqual([400]);
    expect(JSON.parse(answers[0].body.toString())).toEqual(INVALID);
    expect(answers[0].headers['x-ratelimit-remaining']).toBeUndefined();
    expect(remaining(await depreciate(server.port, { from }))).toBe(LIMIT - 1);
  });

  it('answers HTTP/1.1 without Host with the 400 body on both ports, not Node’s bare 400', async () => {
    const request = 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n';
    for (const port of [server.port, server.metricsPort]) {
      const answers = await rawAnswers(port, request);
      expect([port, answers.map(({ status }) => status)]).toEqual([port, [400]]);
      expect(JSON.parse(answers[0].body.toString())).toEqual(INVALID);
    }
  });

  it('serves one Host line as before', async () => {
    const answers = await rawAnswers(server.port, DEPRECIATE_HEAD('Host: a.example\r\n'));
    expect(answers.map(({ status }) => status)).toEqual([200]);
  });

  it.each([
    ['http://evil.example/zz', 'Cannot GET /zz'],
    ['HTTP://EVIL.EXAMPLE:8080/zz?token=1', 'Cannot GET /zz?token=1'],
    ['https://user:pw@evil.example/a/b', 'Cannot GET /a/b'],
  ])(
    'answers the absolute-form target %s with the 404 of its path alone',
    async (target, message) => {
      const request = `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
      const [answer] = await rawAnswers(server.port, request);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body.toString())).toEqual({ statusCode: 404, message });
    },
  );

  it('routes an absolute-form target by its path: the operation, counted', async () => {
    const from = nextClient();
    const request = DEPRECIATE_HEAD('Host: x\r\n').replace(
      'POST /api/depreciate ',
      'POST http://evil.example/api/depreciate ',
    );
    const [answer] = await rawAnswers(server.port, request, from);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('answers /docs-yaml with the 404 of any path the contract does not list', async () => {
    const answer = await send({ port: server.port, path: '/docs-yaml' });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ statusCode: 404, message: 'Cannot GET /docs-yaml' });
    expect((await send({ port: server.port, path: '/docs-json' })).status).toBe(200);
  });
});

describe("the request log of the parser's refusals (built server)", () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: 'info' });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  /** The request log's line of the one answer with `status`, once the server has written it. */
  const lineOf = async (status: number) => {
    const answered = () =>
      server
        .logLines()
        .filter((line) => (line.res as { statusCode?: number })?.statusCode === status);
    await server.until(`the ${status}'s log line`, () => Promise.resolve(answered().length > 0));
    return answered();
  };

  it('logs a 505 at info: any client can send one, and none may page an operator', async () => {
    const client = nextClient();
    const request = 'GET /health/live HTTP/1.2\r\nHost: 127.0.0.1\r\n\r\n';
    const { received } = await exchange(Buffer.from(request), {
      port: server.port,
      localAddress: client,
    });
    expect(parseResponses(received).map((answer) => answer.status)).toEqual([505]);
    expect(await lineOf(505)).toEqual([
      expect.objectContaining({ level: 'info', msg: 'request completed' }),
    ]);
  });

  it('never logs header text as the request line of a 431, whichever slice failed', async () => {
    const client = nextClient();
    const cookie = 'sid=secret; '.repeat(2_000);
    const request = `GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`;
    const { received } = await exchange(Buffer.from(request), {
      port: server.port,
      localAddress: client,
    });
    expect(parseResponses(received).map((answer) => answer.status)).toEqual([431]);
    const [line] = await lineOf(431);
    expect(line.req).toMatchObject({ method: '-', path: '-' });
    expect(server.stdout).not.toContain('sid=secret');
  });

  it.each([
    ['routed (a 404)', 'Connection: close', 404, '/zz'],
    ["refused by Node's parser (a 400)", 'No colon', 400, '/yy'],
  ])(
    'logs the path of an absolute-form target %s, never its scheme or authority',
    async (_, header, status, path) => {
      const request = `GET http://evil.example${path} HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`;
      const [answer] = await rawAnswers(server.port, request);
      expect(answer.status).toBe(status);
      const [line] = await lineOf(status);
      expect(line.req).toMatchObject({ method: 'GET', path });
      expect(server.stdout).not.toContain('evil.example');
    },
  );
});
