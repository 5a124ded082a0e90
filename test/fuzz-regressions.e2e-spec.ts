import { NestExpressApplication } from '@nestjs/platform-express';
import { README_EXAMPLE_ANSWER, README_EXAMPLE_AT } from '../src/testing/readme-example';
import { INVALID, VALID } from '../src/testing/bodies';
import { SettableClock } from '../src/testing/settable-clock';
import { exchange, parseResponses } from '../src/testing/raw-http';
import { createTestApp, depreciateIn, listenTestApp } from '../src/testing/test-app';

/** Answers the fuzz test (fuzz.e2e-spec.ts) found wrong, pinned here one by one. */

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('bodies the validation pipe must refuse with 400', () => {
  let app: NestExpressApplication;

  beforeEach(async () => {
    app = await createTestApp();
  });
  afterEach(() => app.close());

  it('refuses a field nested thousands deep (class-transformer overflowed the stack: a 500)', async () => {
    await depreciateIn(
      app,
      `{"purchaseYear":${nested(4000)},"purchasePrice":1,"vehicleType":"ev"}`,
    ).expect(400, INVALID);
    await depreciateIn(app, `{"extra":${'{"a":'.repeat(1300)}1${'}'.repeat(1300)}}`).expect(
      400,
      INVALID,
    );
  });

  it('refuses a `constructor` key, which class-transformer dropped silently (a 200)', async () => {
    await depreciateIn(
      app,
      JSON.stringify({ ...VALID, constructor: { prototype: { x: 1 } } }),
    ).expect(400, INVALID);
    await depreciateIn(app, JSON.stringify({ ...VALID, constructor: 1 })).expect(400, INVALID);
  });
});

describe('requests Node answers by itself', () => {
  let app: NestExpressApplication;
  let port: number;

  beforeAll(async () => {
    ({ app, port } = await listenTestApp({ clock: new SettableClock(README_EXAMPLE_AT) }));
  });
  afterAll(() => app.close());

  const answer = async (head: string, body = '') => {
    const { received } = await exchange(Buffer.from(head + body, 'latin1'), { port });
    return parseResponses(received, head.startsWith('HEAD '));
  };

  it.each([
    ['an unknown method', 'FOO /api/depreciate HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a lower-case method', 'post /api/depreciate HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a control character in the path', 'GET /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a broken header line', 'GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n'],
    [
      'a bad chunk size',
      'POST /api/depreciate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ],
    ['HTTP/1.1 without Host', 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'],
  ])('answers %s with the error body, not a bare status line', async (_case, head) => {
    const [response, ...more] = await answer(head);
    expect(more).toEqual([]);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body.toString()).toBe(JSON.stringify(INVALID));
  });

  it('answers headers over the size limit with 431 and the error body', async () => {
    const [response] = await answer(
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body.toString()).toBe(
      JSON.stringify({ statusCode: 431, message: 'Request Header Fields Too Large' }),
    );
  });

  it('answers a refused HEAD request without a body', async () => {
    const [response, ...more] = await answer('HEAD /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(more).toEqual([]);
    expect(response.status).toBe(400);
    expect(response.body.length).toBe(0);
  });

  it('ignores an expectation it does not know instead of a bare 417', async () => {
    const body = JSON.stringify(VALID);
    const [response] = await answer(
      'POST /api/depreciate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: bogus\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    expect(response.status).toBe(200);
    // VALID is the README's example without its mileage (which costs nothing): the README's answer.
    expect(JSON.parse(response.body.toString())).toEqual(README_EXAMPLE_ANSWER);
  });
});
