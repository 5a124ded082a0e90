import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { limited, TOO_LARGE, VALID } from '../src/testing/bodies';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { curlRequests, fetchRequest, openConnections } from '../src/testing/edge-clients';
import { nextClient, nextClients } from '../src/testing/clients';
import { remaining } from '../src/testing/daily-limit';
import {
  depreciate,
  keepAliveAgent,
  type Outcome,
  outcomeOf,
  POST_JSON,
  send,
  type HttpCall,
  tally,
} from '../src/testing/http';
import { exchange, parseResponses, RawConnection, rawRequest } from '../src/testing/raw-http';
import { RedisServer } from '../src/testing/redis-server';
import { ServerProcess, startServer, untilReady } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * Every refusal is an HTTP answer with the error body, never a reset (docs/contract.md, "Errors"):
 * the built server with its defaults, driven by the clients people use (Node's http with and
 * without a keep-alive agent, fetch, curl), from distinct 127.0.0.N addresses.
 */
const SMALL = Buffer.from(JSON.stringify(VALID));
const MB = 2 ** 20;
/** A JSON body of `size` bytes: far over the 8 KiB limit. */
const jsonOf = (size: number): Buffer => {
  const body = Buffer.alloc(size, 'x');
  body.write('{"a":"');
  body.write('"}', size - 2);
  return body;
};
const OVER_CAP = {
  statusCode: 503,
  message: 'Too many connections from this client: retry in a second',
};
const bodyOf = (outcome: Outcome): unknown => ('json' in outcome ? outcome.json : outcome);
/** POST /api/depreciate with Node's http (answers not recorded: 503s are not the API's). */
const post = (call: HttpCall): Promise<Outcome> => outcomeOf(send({ ...POST_JSON, ...call }));

/**
 * Waits until the server holds every connection of `sockets` it has not answered: none waits in
 * the kernel's backlog. One over the cap that sent nothing is answered 503 and closed after
 * CONNECTION_REFUSAL_TIMEOUT_MS (1 s): a loaded machine may get there first (the answer sits
 * unread in the socket, which counts as answered).
 */
const untilAccepted = (server: ServerProcess, before: number, sockets: Socket[]) => {
  const unanswered = () => sockets.filter((s) => !s.destroyed && s.readableLength === 0).length;
  return server.untilSockets('the server to accept every connection', (open) => {
    return open >= before + unanswered();
  });
};

describe('refusals are answers (built server, defaults)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_DAY: '1000' });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it(
    'answers 100 parallel requests from one address, over the connection cap with 503, and counts only the 200s',
    async () => {
      const client = nextClient();
      // A backend's pool: 100 connections open at once from one address, then a request on each,
      // each connection kept open after its answer (so a connection the kernel hands the server
      // late, on a loaded machine, still finds the first 32 open and is over the cap).
      const before = await server.openSockets();
      const sockets = await openConnections(server.port, client, 100);
      await untilAccepted(server, before, sockets);
      const headers = { ...POST_JSON.headers, connection: 'keep-alive' };
      const outcomes = await Promise.all(
        sockets.map((socket) => post({ port: server.port, body: SMALL, socket, headers })),
      );
      const counts = tally(outcomes);
      // MAX_CONNECTIONS_PER_CLIENT (32) served; the other 68 within CONNECTION_REFUSALS_PER_CLIENT.
      expect(counts).toEqual({ '200': 32, '503': 68 });
      for (const outcome of outcomes.filter((o) => 'status' in o && o.status === 503)) {
        expect(bodyOf(outcome)).toEqual(OVER_CAP);
        expect('headers' in outcome && outcome.headers['retry-after']).toBe('1');
      }
      // Only the answered 200s were counted: the next request sees 1000 - 32 - 1 left.
      for (const socket of sockets) socket.destroy();
      await server.untilSockets('the server to close all 100', (open) => open <= before);
      const next = await depreciate(server.port, { from: client });
      expect([next.status, remaining(next)]).toEqual([200, 1000 - 32 - 1]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  describeWithTools(['curl'], 'with curl', () => {
    it(
      'answers 100 parallel curl requests from one address (curl --parallel)',
      async () => {
        const outcomes = await curlRequests(server.port, {
          body: SMALL,
          count: 100,
          from: nextClient(),
          parallel: true,
        });
        expect(outcomes).toHaveLength(100);
        const counts = tally(outcomes);
        expect((counts['200'] ?? 0) + (counts['503'] ?? 0)).toBe(100);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  });

  it(
    'answers an endless chunked body with 413 within a second, then closes the connection',
    async () => {
      const connection = await RawConnection.open({
        port: server.port,
        localAddress: nextClient(),
      });
      await connection.write(
        rawRequest('POST', '/api/depreciate', { ...JSON_TYPE, 'Transfer-Encoding': 'chunked' }),
      );
      const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
      let writing = true;
      const pump = async () => {
        while (writing && !connection.socket.destroyed) await connection.write(chunk);
      };
      const started = performance.now();
      void pump();
      await connection.until((data) => data.includes('}'), 5_000);
      const answeredMs = performance.now() - started;
      const [answer] = parseResponses(connection.received);
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body.toString())).toEqual(TOO_LARGE);
      expect(answeredMs).toBeLessThan(1_000);
      // The lingering close reads what still comes for LINGERING_TIME_MS (5 s), then closes.
      await connection.closed;
      writing = false;
      expect(performance.now() - started).toBeLessThan(8_000);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('an oversized body gets its 413 every time (built server, defaults)', () => {
  let server: ServerProcess;
  const RUNS = 20;

  beforeAll(async () => {
    server = await startServer();
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it.each([2, 8, 20])(
    '%i MB: Node http, with and without a keep-alive agent, and fetch read the 413 body in every run',
    async (megabytes) => {
      const body = jsonOf(megabytes * MB);
      const [client, agentClient] = nextClients(2);
      // Past four runs, each request waits for a socket the server still lingers on (up to
      // LINGERING_TIMEOUT_MS, 1 s, for an 8 or 20 MB body), as a pool of one would, four at a time.
      const agent = keepAliveAgent(agentClient, 4);
      const outcomes: Record<string, Outcome[]> = { http: [], keepAlive: [], fetch: [] };
      for (let run = 0; run < RUNS; run++) {
        outcomes.http.push(await post({ port: server.port, body, localAddress: client }));
        outcomes.keepAlive.push(await post({ port: server.port, body, agent }));
        outcomes.fetch.push(await fetchRequest({ port: server.port, body }));
      }
      agent.destroy();
      for (const [client, seen] of Object.entries(outcomes)) {
        expect([client, tally(seen)]).toEqual([client, { '413': RUNS }]);
        for (const outcome of seen) expect(bodyOf(outcome)).toEqual(TOO_LARGE);
      }
    },
    120_000,
  );

  describeWithTools(['curl'], 'with curl', () => {
    it.each([2, 8, 20])(
      '%i MB: curl (Expect: 100-continue) reads the 413 body in every run',
      async (megabytes) => {
        const body = jsonOf(megabytes * MB);
        const outcomes = await curlRequests(server.port, { body, count: RUNS, from: nextClient() });
        expect(tally(outcomes)).toEqual({ '413': RUNS });
        for (const outcome of outcomes) expect(bodyOf(outcome)).toEqual(TOO_LARGE);
      },
      120_000,
    );
  });

  it('answers Expect: 100-continue with the 413 instead of 100 Continue', async () => {
    const connection = await RawConnection.open({ port: server.port, localAddress: nextClient() });
    await connection.write(
      rawRequest('POST', '/api/depreciate', {
        ...JSON_TYPE,
        'Content-Length': 20_000_000,
        Expect: '100-continue',
      }),
    );
    await connection.until((data) => data.includes('}'));
    expect(connection.received.toString()).toMatch(/^HTTP\/1\.1 413 /);
    await connection.closed;
  });
});

describe('a keep-alive client over its limit (built server)', () => {
  let server: ServerProcess;
  const LIMIT = 3;

  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_DAY: String(LIMIT) });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it('gets a 429 for every request past its limit, small bodies and 2 MB ones alike, never a reset', async () => {
    const agent = keepAliveAgent(nextClient(), 4);
    const small = await Promise.all(
      Array.from({ length: 20 }, () => post({ port: server.port, body: SMALL, agent })),
    );
    expect(tally(small)).toEqual({ '200': LIMIT, '429': 20 - LIMIT });
    const large = jsonOf(2 * MB);
    const refused: Outcome[] = [];
    for (let run = 0; run < 10; run++) {
      refused.push(await post({ port: server.port, body: large, agent }));
    }
    agent.destroy();
    expect(tally(refused)).toEqual({ '429': 10 });
    for (const outcome of refused) expect(bodyOf(outcome)).toEqual(limited(LIMIT));
  }, 60_000);
});

describeWithTools(['redis-server'], 'pipelining on the Redis store (built server)', () => {
  let redis: RedisServer;
  let server: ServerProcess;
  const LIMIT = 100;

  beforeAll(async () => {
    redis = await RedisServer.start();
    server = await startServer({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_DAY: String(LIMIT),
    }).then((started) => untilReady(started));
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  }, PROCESS_TEST_TIMEOUT_MS);

  it('answers every request it counts when a client pipelines past the depth', async () => {
    const client = nextClient();
    const post = rawRequest(
      'POST',
      '/api/depreciate',
      { ...JSON_TYPE, 'Content-Length': SMALL.length },
      SMALL.toString(),
    );
    const { received } = await exchange(Buffer.from(post.repeat(9)), {
      port: server.port,
      localAddress: client,
    });
    const answered = parseResponses(received).filter((answer) => answer.status === 200).length;
    const counted = LIMIT - remaining(await depreciate(server.port, { from: client })) - 1;
    expect(answered).toBe(counted);
    // MAX_PIPELINED_REQUESTS (8) are answered; the ninth is dropped uncounted.
    expect(answered).toBe(8);
  });
});

describe('the edge on both ports (built server)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({
      LOG_LEVEL: 'info',
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '1000',
    });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it('gives an answer of the parser the error body, a request id, CORS headers, a log line and a count', async () => {
    const client = nextClient();
    const { received } = await exchange(Buffer.from('GARBAGE / HTTP/1.1\r\n\r\n'), {
      port: server.port,
      localAddress: client,
    });
    const [answer] = parseResponses(received);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString())).toEqual({
      statusCode: 400,
      message: 'Invalid input parameters',
    });
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': expect.stringContaining('X-Request-Id'),
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    const id = answer.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    // Request lines reach stdout at the end of the event loop's turn (StdoutLog.writeSoon).
    const logged = () => server.logLines().some((line) => line.reqId === id);
    await server.until(`the log line of ${id}`, () => Promise.resolve(logged()));
    expect(server.logLines()).toContainEqual(
      expect.objectContaining({
        reqId: id,
        req: { method: '-', path: '/', remoteAddress: client },
        res: { statusCode: 400 },
        msg: 'request completed',
      }),
    );
    expect(await server.metrics()).toMatch(
      /^http_requests_total\{method="-",route="unmatched",status="400"\} [1-9]/m,
    );
  });

  it('answers a silent connection over the cap 503 after CONNECTION_REFUSAL_TIMEOUT_MS, the others 408', async () => {
    const client = nextClient();
    const silent = await Promise.all(
      Array.from({ length: 33 }, () =>
        RawConnection.open({ port: server.port, localAddress: client }),
      ),
    );
    await Promise.all(silent.map((connection) => connection.closed));
    const answers = silent.map((connection) => parseResponses(connection.received)[0]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([
      ...Array<number>(32).fill(408),
      503,
    ]);
    const refused = answers.find((answer) => answer.status === 503);
    expect(JSON.parse(String(refused?.body))).toEqual(OVER_CAP);
    expect(refused?.headers['retry-after']).toBe('1');
  });

  it('holds the metrics port to the public port limits: the per-client cap, the header timeout', async () => {
    const before = await server.openSockets();
    const sockets = await openConnections(server.metricsPort, nextClient(), 40);
    await untilAccepted(server, before, sockets);
    const outcomes = await Promise.all(
      sockets.map((socket) =>
        outcomeOf(send({ port: server.metricsPort, path: '/metrics', socket })),
      ),
    );
    expect(tally(outcomes)).toEqual({ '200': 32, '503': 8 });
    // A connection that sends nothing is answered 408 and closed after HEADERS_TIMEOUT_MS (1 s).
    const silent = await RawConnection.open({
      port: server.metricsPort,
      localAddress: nextClient(),
    });
    const started = performance.now();
    await silent.closed;
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe('one answer per request, and only answered requests counted (built server)', () => {
  let server: ServerProcess;
  const LIMIT = 50;
  const post = (body: string, type = 'application/json') =>
    rawRequest(
      'POST',
      '/api/depreciate',
      { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), Connection: 'close' },
      body,
    );

  beforeAll(async () => {
    server = await startServer({
      RATE_LIMIT_PER_DAY: String(LIMIT),
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '1000',
    });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  const left = async (from: string) => remaining(await depreciate(server.port, { from }));

  it('answers once a chunked body that passes the limit and then breaks its framing, and lives', async () => {
    const client = nextClient();
    const head = rawRequest('POST', '/api/depreciate', {
      ...JSON_TYPE,
      'Transfer-Encoding': 'chunked',
    });
    const chunks = `2000\r\n${'x'.repeat(0x2000)}\r\n`.repeat(2) + 'zz\r\n';
    const { received } = await exchange(Buffer.from(head + chunks), {
      port: server.port,
      localAddress: client,
    });
    const answers = parseResponses(received);
    expect(answers).toHaveLength(1);
    expect([413, 400]).toContain(answers[0].status);
    expect(server.hasExited).toBe(false);
    expect(await left(client)).toBe(LIMIT - 1);
  });

  it('neither handles nor counts a request pipelined behind an answer that closes the connection', async () => {
    const client = nextClient();
    const oversized = rawRequest(
      'POST',
      '/api/depreciate',
      { ...JSON_TYPE, 'Content-Length': 9000 },
      'x'.repeat(9000),
    );
    const { received } = await exchange(Buffer.from(oversized + post(SMALL.toString())), {
      port: server.port,
      localAddress: client,
    });
    expect(parseResponses(received).map((answer) => answer.status)).toEqual([413]);
    expect(await left(client)).toBe(LIMIT - 1);
  });

  /** A chunked POST of `body` whole, a valid POST that keeps the connection behind it, in one write. */
  const chunkedThenPipelined = async (client: string, body: string) => {
    const chunked = rawRequest(
      'POST',
      '/api/depreciate',
      { ...JSON_TYPE, 'Transfer-Encoding': 'chunked' },
      `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    const valid = SMALL.toString();
    const behind = rawRequest(
      'POST',
      '/api/depreciate',
      { ...JSON_TYPE, 'Content-Length': Buffer.byteLength(valid) },
      valid,
    );
    const connection = await RawConnection.open({ port: server.port, localAddress: client });
    await connection.write(chunked + behind);
    await connection.until((bytes) => {
      const text = bytes.toString();
      return text.split('HTTP/1.1 ').length === 3 && text.endsWith('}');
    });
    connection.close();
    return parseResponses(connection.received).map((answer) => ({
      status: answer.status,
      connection: answer.headers.connection,
      remaining: answer.headers['x-ratelimit-remaining'],
    }));
  };

  it('answers, in order, a chunked body whole in one read and the request pipelined behind it', async () => {
    expect(await chunkedThenPipelined(nextClient(), SMALL.toString())).toEqual([
      { status: 200, connection: 'keep-alive', remaining: String(LIMIT - 1) },
      { status: 200, connection: 'keep-alive', remaining: String(LIMIT - 2) },
    ]);
  });

  it('refuses a chunked body over the limit that arrived whole, keeps the connection, answers what follows', async () => {
    const oversized = `{"purchasePrice":${'1'.repeat(9000)}}`;
    expect(await chunkedThenPipelined(nextClient(), oversized)).toEqual([
      { status: 413, connection: 'keep-alive', remaining: undefined },
      { status: 200, connection: 'keep-alive', remaining: String(LIMIT - 1) },
    ]);
  });

  it('refuses a JSON body that is not an object or an array before routing: not counted', async () => {
    const client = nextClient();
    const { received } = await exchange(Buffer.from(post('2020')), {
      port: server.port,
      localAddress: client,
    });
    expect(parseResponses(received).map((answer) => answer.status)).toEqual([400]);
    expect(await left(client)).toBe(LIMIT - 1);
  });

  it('keeps the connection after a refusal of a request without a body', async () => {
    const get = rawRequest('GET', '/nowhere');
    const last = rawRequest('GET', '/nowhere', { Connection: 'close' });
    const { received } = await exchange(Buffer.from(get + last), {
      port: server.port,
      localAddress: nextClient(),
    });
    const answers = parseResponses(received);
    expect(answers.map((answer) => [answer.status, answer.headers.connection])).toEqual([
      [404, 'keep-alive'],
      [404, 'close'],
    ]);
  });

  it('gives a request answered early, whose small body then stalls, no second answer', async () => {
    const connection = await RawConnection.open({ port: server.port, localAddress: nextClient() });
    await connection.write(
      rawRequest(
        'POST',
        '/api/depreciate',
        { 'Content-Type': 'text/plain', 'Content-Length': 100 },
        '0123456789',
      ),
    );
    // The 415 (counted) comes at once; the rest of the body never does: REQUEST_TIMEOUT_MS later
    // the connection closes, with no 408 after the 415.
    await connection.closed;
    expect(parseResponses(connection.received).map((answer) => answer.status)).toEqual([415]);
  });
});
