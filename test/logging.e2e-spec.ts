import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import request from 'supertest';
import { BODY_LIMIT_BYTES } from '../src/common/error-responses';
import { AppLogger } from '../src/logging/app-logger';
import { recordingAppLogger } from '../src/testing/recording-logger';
import { INTERNAL_ERROR, ISO_TIME, VALID } from '../src/testing/bodies';
import { RawConnection, rawRequest } from '../src/testing/raw-http';
import { createTestApp, depreciateIn } from '../src/testing/test-app';
import { waitFor } from '../src/testing/processes';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The line logged for a request this test made (from 127.0.0.1), whole. */
const requestLine = (line: {
  level: string;
  reqId: string;
  method: string;
  path: string;
  statusCode: number;
  msg: string;
}) => ({
  level: line.level,
  time: expect.stringMatching(ISO_TIME),
  pid: process.pid,
  hostname: hostname(),
  reqId: line.reqId,
  req: {
    method: line.method,
    path: line.path,
    remoteAddress: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
  },
  res: { statusCode: line.statusCode },
  responseTime: expect.any(Number),
  msg: line.msg,
});

@Controller('boom')
class BoomController {
  @Get()
  boom(): never {
    throw new Error('kaboom');
  }
}

/** Says on purpose that it cannot serve now, as readiness does while Redis is away. */
@Controller('unavailable')
class UnavailableController {
  @Get()
  unavailable(): never {
    throw new ServiceUnavailableException('Not ready: Redis unavailable');
  }
}

/** Answers only once the test lets it: a request the client can leave before its answer. */
@Controller('slow')
class SlowController {
  static release: () => void = () => undefined;
  static reached: Promise<void>;
  private static arrived: () => void;

  static reset(): void {
    SlowController.reached = new Promise((resolve) => (SlowController.arrived = resolve));
  }

  @Get()
  slow(): Promise<{ late: true }> {
    SlowController.arrived();
    return new Promise((resolve) => (SlowController.release = () => resolve({ late: true })));
  }
}

describe('request logs', () => {
  let app: NestExpressApplication;
  let output: string[];
  let lines: () => Record<string, unknown>[];
  const linesOf = (id: string): Record<string, unknown>[] => lines().filter((l) => l.reqId === id);

  beforeEach(async () => {
    const recorded = recordingAppLogger('info');
    ({ output, lines } = recorded);
    app = await createTestApp({
      extra: { controllers: [BoomController, SlowController, UnavailableController] },
      override: (builder) => builder.overrideProvider(AppLogger).useValue(recorded.logger),
    });
  });
  afterEach(async () => {
    SlowController.release();
    await app.close();
  });

  it('writes one JSON line per request: method, path, status, duration, the caller’s id', async () => {
    const response = await request(app.getHttpServer())
      .post('/api/depreciate?token=secret-value')
      .set('X-Request-Id', 'trace-4f2a.01:b')
      .set('User-Agent', 'agent-under-test')
      .send(VALID)
      .expect(200);

    expect(response.headers['x-request-id']).toBe('trace-4f2a.01:b');
    expect(linesOf('trace-4f2a.01:b')).toEqual([
      requestLine({
        level: 'info',
        reqId: 'trace-4f2a.01:b',
        method: 'POST',
        path: '/api/depreciate',
        statusCode: 200,
        msg: 'request completed',
      }),
    ]);
  });

  it('logs no body, no header and no query string', async () => {
    await request(app.getHttpServer())
      .post('/api/depreciate?token=secret-value')
      .set('User-Agent', 'agent-under-test')
      .send(VALID)
      .expect(200);
    const text = output.join('');
    for (const leak of [
      'secret-value',
      'sedan',
      '25000',
      'agent-under-test',
      'content-type',
      'headers',
    ]) {
      expect(text).not.toContain(leak);
    }
  });

  it.each([
    ['no id', undefined],
    ['an empty id', ''],
    ['an id of 129 characters', 'x'.repeat(129)],
    ['an id with a space', 'two words'],
    ['an id with a semicolon', 'a;b'],
    ['an id with 8-bit characters', 'caf\u00e9'],
  ])('generates a UUID for %s, sends it back and logs it', async (_case, sent) => {
    const call = depreciateIn(app);
    if (sent !== undefined) void call.set('X-Request-Id', sent);
    const response = await call.expect(200);

    const id = response.headers['x-request-id'];
    expect(id).toMatch(UUID);
    expect(linesOf(id)).toHaveLength(1);
  });

  it('logs the answers the body parser gives before routing too (413, malformed JSON)', async () => {
    const tooLarge = await depreciateIn(app, `{"a":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`).expect(413);
    const malformed = await depreciateIn(app, '{"purchaseYear":').expect(400);

    expect(linesOf(tooLarge.headers['x-request-id'])).toMatchObject([
      { req: { method: 'POST', path: '/api/depreciate' }, res: { statusCode: 413 } },
    ]);
    expect(linesOf(malformed.headers['x-request-id'])).toMatchObject([
      { req: { method: 'POST', path: '/api/depreciate' }, res: { statusCode: 400 } },
    ]);
  });

  it('logs a request the client left before its answer as aborted', async () => {
    SlowController.reset();
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const client = new RawConnection({ port });
    await client.write(rawRequest('GET', '/slow', { 'X-Request-Id': 'left-early' }));
    await SlowController.reached;
    client.close();
    await waitFor('the aborted request line', () =>
      Promise.resolve(linesOf('left-early').length > 0),
    );
    expect(linesOf('left-early')).toMatchObject([
      {
        level: 'info',
        req: { method: 'GET', path: '/slow' },
        res: { statusCode: null },
        msg: 'request aborted',
      },
    ]);
  });

  it('logs a 503 said on purpose at warn, not as a failure', async () => {
    const response = await request(app.getHttpServer())
      .get('/unavailable')
      .expect(503, { statusCode: 503, message: 'Not ready: Redis unavailable' });
    expect(linesOf(response.headers['x-request-id'])).toMatchObject([
      { level: 'warn', res: { statusCode: 503 }, msg: 'request completed' },
    ]);
  });

  it('logs an unexpected error once, with its stack and the request id; the answer has neither', async () => {
    const response = await request(app.getHttpServer()).get('/boom').expect(500, INTERNAL_ERROR);

    const id = response.headers['x-request-id'];
    const [errorLine, failedLine, ...more] = linesOf(id);
    expect(more).toEqual([]);
    expect(errorLine).toMatchObject({
      level: 'error',
      context: 'ExceptionsHandler',
      msg: 'kaboom',
      err: {
        type: 'Error',
        message: 'kaboom',
        stack: expect.stringContaining('at BoomController.boom'),
      },
    });
    expect(failedLine).toEqual(
      requestLine({
        level: 'error',
        reqId: id,
        method: 'GET',
        path: '/boom',
        statusCode: 500,
        msg: 'request failed',
      }),
    );
    expect(output.filter((line) => line.includes('kaboom'))).toHaveLength(1);
  });
});

describe('log levels', () => {
  it.each([
    ['silent', 'silent'],
    ['fatal', 'fatal'],
    ['error', 'error'],
    ['warn', 'warn'],
    ['info', 'info'],
    ['debug', 'debug'],
    ['verbose', 'trace'],
  ] as const)('LOG_LEVEL=%s logs at pino level %s', (level, pino) => {
    expect(recordingAppLogger(level).logger.pino.level).toBe(pino);
  });

  it('leaves out request lines below the level', async () => {
    const { logger, output } = recordingAppLogger('warn');
    const app = await createTestApp({
      override: (builder) => builder.overrideProvider(AppLogger).useValue(logger),
    });
    await depreciateIn(app).expect(200);
    await app.close();
    expect(output).toEqual([]);
  });
});
