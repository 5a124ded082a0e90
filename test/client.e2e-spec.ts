import {
  depreciate,
  DepreciateOptions,
  DepreciateResult,
  DepreciationRequest,
  FetchLike,
} from '@vehicle-depreciation/client';
import { performance } from 'node:perf_hooks';
import { freePort, PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { README_EXAMPLE_REQUEST } from '../src/testing/readme-example';
import { recordAnswer } from '../src/testing/bodies';
import { RawConnection } from '../src/testing/raw-http';
import { ServerProcess, startServer } from '../src/testing/server-process';

/**
 * The TypeScript client (clients/typescript, as built into its dist/ and imported by its package
 * name) against the built server started as a process: every status the server can be made to
 * give, and a network failure. A 500 cannot be provoked from outside (no request makes the service
 * fail); its mapping is in clients/typescript/test/depreciate.spec.ts.
 */
const REQUEST: DepreciationRequest = README_EXAMPLE_REQUEST;
const LIMIT = 50;
/** The header and request timeouts of `slow`: short, so a stalled body gets its 408 soon. */
const TIMEOUT_MS = 1_500;
/** The statuses the OpenAPI document lists: their bodies are checked against it after the file. */
const IN_OPENAPI = [200, 400, 413, 415, 429];

describe('The TypeScript client against the built server', () => {
  let server: ServerProcess;
  let tiny: ServerProcess;
  let edge: ServerProcess;
  let slow: ServerProcess;

  beforeAll(async () => {
    [server, tiny, edge, slow] = await Promise.all([
      startServer({ RATE_LIMIT_PER_DAY: String(LIMIT) }),
      startServer({ RATE_LIMIT_PER_DAY: '1' }),
      // One server each: no connection another test left counts against the cap, and no client
      // over its daily limit is refused 429 before its body is awaited.
      startServer({ MAX_CONNECTIONS_PER_CLIENT: '1' }),
      startServer({
        HEADERS_TIMEOUT_MS: String(TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      }),
    ]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(
    () => Promise.all([server?.stop(), tiny?.stop(), edge?.stop(), slow?.stop()]),
    PROCESS_TEST_TIMEOUT_MS,
  );

  /** The client's call to `on`; an answer the OpenAPI document lists is recorded for its check. */
  async function call(
    on: ServerProcess,
    request: DepreciationRequest = REQUEST,
    options: DepreciateOptions = {},
  ): Promise<DepreciateResult> {
    const result = await depreciate(request, { baseUrl: on.url, ...options });
    if ((result.kind === 'ok' || result.kind === 'error') && IN_OPENAPI.includes(result.status)) {
      recordAnswer({
        method: 'POST',
        path: '/api/depreciate',
        status: result.status,
        body: result.body,
      });
    }
    return result;
  }

  /** A JSON body of the request's fields that goes past 8 KiB (the request type has no room). */
  const oversized = { ...REQUEST, notes: 'x'.repeat(9 * 1024) } as unknown as DepreciationRequest;

  it('200: the valuation, with the daily limit as numbers', async () => {
    const result = await call(server);
    expect(result.kind).toBe('ok');
    if (result.kind !== 'ok') return;
    expect(result.status).toBe(200);
    expect(result.body.success).toBe(true);
    expect(result.body.meta).toMatchObject({ vehicleType: 'sedan' });
    expect(result.body.data.yearlyBreakdown[0]).toMatchObject({ year: 2020, value: 25000 });
    const { rateLimit } = result;
    expect(rateLimit).toMatchObject({ limit: LIMIT, remaining: LIMIT - 1 });
    expect(rateLimit?.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(rateLimit?.resetSeconds).toBeLessThanOrEqual(86_400);
    expect(result.retryAfterSeconds).toBeNull();
    expect(result.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('200 with a projection: the years after the current one, asked through projectionYears', async () => {
    const result = await call(server, { ...REQUEST, purchaseYear: 1990, projectionYears: 3 });
    expect(result.kind).toBe('ok');
    if (result.kind !== 'ok') return;
    const { meta, data } = result.body;
    const year = Number(meta.calculatedAt.slice(0, 4));
    // Past 25 the sedan stays on its 10 % floor (2,500): the projection loses nothing.
    expect(data.currentValue).toBe(2500);
    expect(data.projection).toEqual(
      [1, 2, 3].map((ahead) => ({
        year: year + ahead,
        age: meta.vehicleAge + ahead,
        value: 2500,
        depreciation: 0,
        depreciationPercent: 0,
      })),
    );
  });

  it('400: projectionYears outside 0 to 10', async () => {
    const result = await call(server, { ...REQUEST, projectionYears: 11 });
    expect(result).toMatchObject({ kind: 'error', status: 400, rateLimit: { limit: LIMIT } });
  });

  it('400: a field outside its rules, counted', async () => {
    const result = await call(server, { ...REQUEST, purchaseYear: 1800 });
    expect(result).toMatchObject({
      kind: 'error',
      status: 400,
      body: { statusCode: 400, message: 'Invalid input parameters' },
      rateLimit: { limit: LIMIT },
    });
  });

  it('413: a body over 8 KiB, refused before counting (no rate-limit headers)', async () => {
    const result = await call(server, oversized);
    expect(result).toMatchObject({
      kind: 'error',
      status: 413,
      body: { statusCode: 413, message: 'Request body too large' },
      rateLimit: null,
    });
  });

  it('415: a Content-Type other than JSON, through the extra headers', async () => {
    const result = await call(server, REQUEST, { headers: { 'Content-Type': 'text/plain' } });
    expect(result).toMatchObject({
      kind: 'error',
      status: 415,
      body: { statusCode: 415, message: 'Content-Type must be application/json' },
      rateLimit: { limit: LIMIT },
    });
  });

  it('431: headers over 16 KiB, through the extra headers', async () => {
    const result = await call(server, REQUEST, { headers: { 'X-Padding': 'a'.repeat(20_000) } });
    expect(result).toMatchObject({
      kind: 'error',
      status: 431,
      body: { statusCode: 431 },
      rateLimit: null,
    });
  });

  it('429: past the daily limit, with Retry-After until the reset', async () => {
    const first = await call(tiny);
    expect(first).toMatchObject({ kind: 'ok', rateLimit: { limit: 1, remaining: 0 } });
    const result = await call(tiny);
    expect(result).toMatchObject({
      kind: 'error',
      status: 429,
      body: { statusCode: 429, message: 'Rate limit exceeded. Maximum 1 requests per 24 hours.' },
      rateLimit: { limit: 1, remaining: 0 },
    });
    if (result.kind !== 'error' || result.status !== 429) return;
    expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(result.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    // Retry-After and X-RateLimit-Reset name the same moment, the next 00:00 UTC.
    expect(
      Math.abs(result.retryAfterSeconds! - result.rateLimit!.resetSeconds),
    ).toBeLessThanOrEqual(1);
  });

  it('503: a connection over MAX_CONNECTIONS_PER_CLIENT, with Retry-After of one second', async () => {
    // The one connection this client (127.0.0.1) may have: open, sending nothing yet.
    const before = await edge.openSockets();
    const held = await RawConnection.open({ port: edge.port });
    try {
      // Accepted and counted by the server before the client connects.
      await edge.untilSockets('the held connection to be accepted', (open) => open > before);
      const result = await call(edge);
      expect(result).toMatchObject({
        kind: 'error',
        status: 503,
        body: {
          statusCode: 503,
          message: 'Too many connections from this client: retry in a second',
        },
        rateLimit: null,
        retryAfterSeconds: 1,
      });
    } finally {
      held.socket.destroy();
      await held.closed;
    }
  });

  it('408: a request whose body never finishes, through an injected fetch', async () => {
    // The client's fetch option wraps the global fetch: the body starts and then stalls.
    const stalled: FetchLike = (url, init) =>
      fetch(url, {
        ...init,
        duplex: 'half',
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode((init.body as string).slice(0, 20)));
          },
        }),
      });
    const started = performance.now();
    const result = await call(slow, REQUEST, { fetch: stalled });
    expect(result).toMatchObject({
      kind: 'error',
      status: 408,
      body: { statusCode: 408 },
      rateLimit: null,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
  });

  it('a network failure: a closed port resolves, with status 0 and the connection error', async () => {
    const closed = await freePort();
    const result = await depreciate(REQUEST, { baseUrl: `http://127.0.0.1:${closed}` });
    expect(result).toMatchObject({ kind: 'network', status: 0 });
    if (result.kind !== 'network') return;
    expect((result.error as Error & { cause?: { code?: string } }).cause?.code).toBe(
      'ECONNREFUSED',
    );
  });

  it('an aborted request resolves too, as aborted', async () => {
    const result = await call(server, REQUEST, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ kind: 'aborted', status: 0 });
  });
});
