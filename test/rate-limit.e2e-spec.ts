import { Controller, Get, INestApplication, Logger } from '@nestjs/common';
import { getOptionsToken, SkipThrottle, Throttle } from '@nestjs/throttler';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { StartupRefusal } from '../src/common/startup-refusal';
import { DailyLimitStorage, DAY_MS } from '../src/rate-limit/daily-limit.storage';
import { IncomingHttpHeaders } from 'node:http';
import { BODY_LIMIT_BYTES } from '../src/common/error-responses';
import { nextClient } from '../src/testing/clients';
import { depreciate, HttpAnswer, send } from '../src/testing/http';
import { INTERNAL_ERROR, INVALID, limited, UNSUPPORTED_TYPE, VALID } from '../src/testing/bodies';
import { OverLimitStorage } from '../src/testing/daily-limit';
import { SettableClock } from '../src/testing/settable-clock';
import { README_EXAMPLE_ANSWER } from '../src/testing/readme-example';
import { runToExit } from '../src/testing/server-process';
import { listenTestApp, scrapeMetrics, startupFailure } from '../src/testing/test-app';

const LIMITED = limited(100);

/**
 * The answer to VALID valued at `calculatedAt` (in 2026): the README's, pinned by hand, since VALID
 * is the README's example without its mileage, which costs nothing (8,333 miles a year).
 */
const validAnswerAt = (calculatedAt: string) => ({
  ...README_EXAMPLE_ANSWER,
  meta: { ...README_EXAMPLE_ANSWER.meta, calculatedAt },
});

/** A route a team marks as free, like a health check. */
@SkipThrottle()
@Controller('api/extension/free')
class FreeController {
  @Get()
  free(): { free: true } {
    return { free: true };
  }

  /** Counted after all: the handler's own metadata overrides its controller's. */
  @SkipThrottle({ default: false })
  @Get('counted')
  counted(): { counted: true } {
    return { counted: true };
  }
}

/** A module a team adds: its routes share the API's daily budget and error body. */
@Controller('api/extension')
class ExtensionController {
  @Get('ping')
  ping(): { pong: true } {
    return { pong: true };
  }

  @Get('boom')
  boom(): never {
    throw new Error('an unexpected failure');
  }
}

/** A team's route asking for a limit of its own, which the daily limit cannot honour. */
@Controller('api/extension/throttled')
class ThrottledController {
  @Throttle({ default: { limit: 5, ttl: 60_000 } })
  @Get()
  burst(): { ok: true } {
    return { ok: true };
  }

  /** The daily limit itself, but its own tracker: not honoured either. */
  @Throttle({ default: { limit: 100, ttl: DAY_MS, getTracker: () => 'everyone' } })
  @Get('tracked')
  tracked(): { ok: true } {
    return { ok: true };
  }
}

/** A whole controller with a limit of its own, but for a route it exempts. */
@Throttle({ default: { limit: 5, ttl: 60_000 } })
@Controller('api/extension/throttled-class')
class ThrottledClassController {
  @Get()
  each(): { ok: true } {
    return { ok: true };
  }

  @SkipThrottle()
  @Get('exempt')
  exempt(): { exempt: true } {
    return { exempt: true };
  }
}

/** A controller with a limit of its own, which limits nothing: its one route is exempt. */
@Throttle({ default: { limit: 5, ttl: 60_000 } })
@Controller('api/extension/all-exempt')
class AllExemptController {
  @SkipThrottle()
  @Get()
  exempt(): { exempt: true } {
    return { exempt: true };
  }
}

/**
 * A script node preloads (NODE_OPTIONS=--require) to put @Throttle() on the API's operation. The
 * built server is one bundle (scripts/bundle.cjs), so its controller is reached as it is decorated:
 * TypeScript's decorator helper calls Reflect.decorate, which the bundled reflect-metadata defines.
 */
const THROTTLE_THE_OPERATION = `
const { Throttle } = require(${JSON.stringify(require.resolve('@nestjs/throttler'))});
const throttle = Throttle({ default: { limit: 5, ttl: 60000 } });
const reflect = Reflect;
const throttled = (decorate) => (decorators, target, key, descriptor) =>
  decorate(
    target?.constructor?.name === 'DepreciationController' && key === 'calculate'
      ? [throttle, ...decorators]
      : decorators,
    target, key, descriptor);
globalThis.Reflect = new Proxy(reflect, {
  defineProperty: (target, key, attributes) =>
    reflect.defineProperty(target, key,
      key === 'decorate' ? { ...attributes, value: throttled(attributes.value) } : attributes),
});
`;

describe('the daily limit (e2e, through AppModule)', () => {
  let app: INestApplication;
  let port: number;
  let clock: SettableClock;

  const start = async (overrides: { storage?: DailyLimitStorage } = {}) => {
    clock = new SettableClock('2026-11-21T23:00:00.000Z');
    const { storage } = overrides;
    ({ app, port } = await listenTestApp({
      extra: { controllers: [ExtensionController, FreeController] },
      clock,
      override: storage
        ? (builder) => builder.overrideProvider(DailyLimitStorage).useValue(storage)
        : undefined,
    }));
  };

  afterEach(() => app.close());

  describe('with the in-memory storage', () => {
    beforeEach(() => start());

    it('lets 100 requests through, then answers 429 with the exact body and Retry-After', async () => {
      for (let i = 1; i <= 100; i++) {
        const answer = await depreciate(port);
        expect(answer.status).toBe(200);
        expect(answer.headers['x-ratelimit-remaining']).toBe(String(100 - i));
      }
      const refused = await depreciate(port);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual(LIMITED);
      expect(refused.text).toBe(JSON.stringify(LIMITED));
      expect(refused.headers).toMatchObject({
        'retry-after': '3600',
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '3600',
        'ratelimit-policy': '"daily";q=100;w=86400',
        ratelimit: '"daily";r=0;t=3600',
      });
    });

    it('lets exactly 100 of a concurrent burst of 300 through, and another client is unaffected', async () => {
      const another = nextClient();
      const client = nextClient();
      const answers = await Promise.all(
        Array.from({ length: 300 }, () => depreciate(port, { from: client })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(200);
      const other = await depreciate(port, { from: another });
      expect(other.status).toBe(200);
      expect(other.headers['x-ratelimit-remaining']).toBe('99');
    });

    it('puts every rate-limit header on a counted 400 and on a counted 500', async () => {
      const invalid = await depreciate(port, { body: { ...VALID, vehicleType: 'boat' } });
      expect(invalid.status).toBe(400);
      expect(invalid.json).toEqual(INVALID);
      expect(invalid.headers).toMatchObject({
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': '3600',
        'ratelimit-policy': '"daily";q=100;w=86400',
        ratelimit: '"daily";r=99;t=3600',
      });
      const logError = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        const failed = await send({ port, path: '/api/extension/boom' });
        expect(failed.json).toEqual(INTERNAL_ERROR);
        expect(failed.headers).toMatchObject({
          'x-ratelimit-remaining': '98',
          ratelimit: '"daily";r=98;t=3600',
        });
      } finally {
        logError.mockRestore();
      }
    });

    it('counts invalid requests too: the limit is checked before validation', async () => {
      for (let i = 0; i < 100; i++) {
        const answer = await depreciate(port, { body: { ...VALID, purchaseYear: 1800 } });
        expect(answer.status).toBe(400);
      }
      const answer = await depreciate(port);
      expect(answer.status).toBe(429);
      expect(answer.json).toEqual(LIMITED);
      const invalidPastLimit = await depreciate(port, { body: { bad: true } });
      expect(invalidPastLimit.json).toEqual(LIMITED);
    });

    it('counts a request refused for its Content-Type, with the headers on the 415', async () => {
      const answer = await depreciate(port, { body: 'x', type: null });
      expect(answer.status).toBe(415);
      expect(answer.json).toEqual(UNSUPPORTED_TYPE);
      expect(answer.headers['x-ratelimit-remaining']).toBe('99');
      // JSON in another charset too: refused by the route's guard, after counting, not before routing.
      const latin1 = await send({
        port,
        method: 'POST',
        path: '/api/depreciate',
        headers: { 'content-type': 'application/json; charset=latin1' },
        body: JSON.stringify(VALID),
      });
      expect(latin1.status).toBe(415);
      expect(latin1.json).toEqual(UNSUPPORTED_TYPE);
      expect(latin1.headers['x-ratelimit-remaining']).toBe('98');
      expect((await depreciate(port)).headers['x-ratelimit-remaining']).toBe('97');
    });

    it('frees every client at 00:00:00.000 UTC, not 24 hours after its first request', async () => {
      for (let i = 0; i < 100; i++) await depreciate(port);
      clock.set('2026-11-21T23:59:59.999Z');
      const stillLimited = await depreciate(port);
      expect(stillLimited.status).toBe(429);
      expect(stillLimited.headers['retry-after']).toBe('1');
      clock.set('2026-11-22T00:00:00.000Z');
      const free = await depreciate(port);
      expect(free.status).toBe(200);
      expect(free.json).toEqual(validAnswerAt('2026-11-22T00:00:00.000Z'));
      expect(free.headers).toMatchObject({
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': '86400',
      });
    });

    it("applies one budget across the API, a team's module included", async () => {
      await depreciate(port);
      const ping = await send({ port, path: '/api/extension/ping' });
      expect(ping.status).toBe(200);
      expect(ping.json).toEqual({ pong: true });
      expect(ping.headers['x-ratelimit-remaining']).toBe('98');
      for (let i = 0; i < 98; i++) await send({ port, path: '/api/extension/ping' });
      const refused = await send({ port, path: '/api/extension/ping' });
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual(LIMITED);
      expect((await depreciate(port)).status).toBe(429);
    });

    it('does not count a route marked @SkipThrottle(), nor give it rate-limit headers', async () => {
      for (let i = 0; i < 3; i++) {
        const free = await send({ port, path: '/api/extension/free' });
        expect(free.json).toEqual({ free: true });
        expect(free.headers['x-ratelimit-remaining']).toBeUndefined();
      }
      expect((await depreciate(port)).headers['x-ratelimit-remaining']).toBe('99');
    });

    it('counts a handler that overrides its controller with @SkipThrottle({ default: false })', async () => {
      const counted = await send({ port, path: '/api/extension/free/counted' });
      expect(counted.json).toEqual({ counted: true });
      expect(counted.headers['x-ratelimit-remaining']).toBe('99');
    });

    describe('once a client is over its limit', () => {
      /** Everything but what differs between two answers anyway: the date and the request id. */
      const comparable = ({ date: _date, 'x-request-id': _id, ...rest }: IncomingHttpHeaders) =>
        rest;
      let first: HttpAnswer;

      beforeEach(async () => {
        for (let i = 0; i < 100; i++) await depreciate(port);
        first = await depreciate(port);
        expect(first.status).toBe(429);
      });

      it('answers the same 429 before reading the body, whatever the body or its type', async () => {
        const later: HttpAnswer[] = [
          await depreciate(port),
          await depreciate(port, { body: '{' }),
          await depreciate(port, { body: `{"a":"${'x'.repeat(BODY_LIMIT_BYTES)}"}` }),
          await depreciate(port, { body: 'x', type: 'text/plain' }),
        ];
        // Every spelling Express routes to the operation: a trailing slash, another case.
        for (const path of ['/api/depreciate/', '/API/Depreciate']) {
          const oversized = `{"a":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`;
          later.push(
            await send({
              port,
              method: 'POST',
              path,
              headers: { 'content-type': 'application/json' },
              body: oversized,
            }),
          );
        }
        for (const answer of later) {
          expect(answer.status).toBe(429);
          expect(answer.text).toBe(first.text);
          expect(comparable(answer.headers)).toEqual(comparable(first.headers));
        }
        expect(first.text).toBe(JSON.stringify(LIMITED));
        const metrics = await scrapeMetrics(app);
        expect(metrics).toContain(
          'http_requests_total{method="POST",route="/api/depreciate",status="429"} 7',
        );
      });

      it('still answers a route marked @SkipThrottle() and an unknown path as before', async () => {
        const client = nextClient();
        const free = await send({ port, path: '/api/extension/free' });
        expect([free.status, free.json]).toEqual([200, { free: true }]);
        const unknown = await send({ port, method: 'POST', path: '/nowhere' });
        expect([unknown.status, unknown.json]).toEqual([
          404,
          { statusCode: 404, message: 'Cannot POST /nowhere' },
        ]);
        expect((await send({ port, path: '/api/extension/ping' })).json).toEqual(LIMITED);
        const other = await depreciate(port, { from: client });
        expect([other.status, other.json]).toEqual([
          200,
          validAnswerAt('2026-11-21T23:00:00.000Z'),
        ]);
      });

      it('frees the client at midnight UTC', async () => {
        expect((await depreciate(port, { body: '{' })).status).toBe(429);
        clock.set('2026-11-22T00:00:00.000Z');
        const malformed = await depreciate(port, { body: '{' });
        expect([malformed.status, malformed.json]).toEqual([400, INVALID]);
        const free = await depreciate(port);
        expect(free.status).toBe(200);
        expect(free.headers['x-ratelimit-remaining']).toBe('99');
      });
    });

    it('does not count the documentation', async () => {
      for (let i = 0; i < 3; i++) {
        expect((await send({ port, path: '/docs-json' })).status).toBe(200);
        expect((await send({ port, path: '/docs' })).status).toBe(200);
      }
      expect((await depreciate(port)).headers['x-ratelimit-remaining']).toBe('99');
    });

    it('does not count requests refused before routing (unknown path, malformed JSON)', async () => {
      await send({ port, path: '/nowhere' });
      await depreciate(port, { body: '{' });
      expect((await depreciate(port)).headers['x-ratelimit-remaining']).toBe('99');
    });
  });

  describe('with a storage a test provides (overrideProvider)', () => {
    it('uses it for every route, keyed by the client alone', async () => {
      const storage = new OverLimitStorage(60);
      await start({ storage });
      const answer = await request(app.getHttpServer())
        .get('/api/extension/ping')
        .expect(429, LIMITED);
      expect(answer.headers['retry-after']).toBe('60');
      const client = nextClient();
      await depreciate(port, { from: client });
      expect(storage.keys).toEqual(['127.0.0.1', client]);
    });
  });

  describe('what the guard does not honour, refused loudly', () => {
    const refusal = (routes: string) =>
      `@Throttle() on ${routes} is not supported: the daily limit is one budget per client per ` +
      'UTC day across the API (RATE_LIMIT_PER_DAY). Remove it, or use @SkipThrottle() to exempt ' +
      'the route.';

    it.each([
      ['ThrottledController.burst, ThrottledController.tracked', [ThrottledController]],
      ['ThrottledClassController.each', [ThrottledClassController]],
      [
        'ThrottledController.burst, ThrottledController.tracked, ThrottledClassController.each',
        [ThrottledController, ThrottledClassController],
      ],
    ])('refuses to start with @Throttle(), in one line naming %s', async (routes, controllers) => {
      const error = await startupFailure({ extra: { controllers } });
      expect(error).toBeInstanceOf(StartupRefusal);
      expect((error as StartupRefusal).message).toBe(refusal(routes));
    });

    it('stops the built server in one line, exit 1, for @Throttle() on its operation', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'throttled-operation-'));
      try {
        const preload = join(dir, 'throttle.cjs');
        writeFileSync(preload, THROTTLE_THE_OPERATION);
        const options = `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`;
        const { code, stderr } = await runToExit({ NODE_OPTIONS: options.trim() });
        expect({ code, stderr }).toEqual({
          code: 1,
          stderr: `${refusal('DepreciationController.calculate')}\n`,
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('answers a route marked @SkipThrottle() under a controller with @Throttle(), uncounted', async () => {
      ({ app } = await listenTestApp({ extra: { controllers: [AllExemptController] } }));
      const answer = await request(app.getHttpServer())
        .get('/api/extension/all-exempt')
        .expect(200, { exempt: true });
      expect(answer.headers['x-ratelimit-remaining']).toBeUndefined();
    });

    it.each([
      [{ ignoreUserAgents: [/bot/], setHeaders: false }, 'option(s) ignoreUserAgents, setHeaders'],
      [{ throttlers: [{ limit: 100, ttl: 60_000 }] }, 'takes exactly one throttler'],
      [{}, "ThrottlerModule's storage must be that store"],
    ])('refuses to start with throttler options %o', async (options, error) => {
      const given = { throttlers: [{ limit: 100, ttl: DAY_MS }], ...options };
      const refused = await startupFailure({
        override: (builder) => builder.overrideProvider(getOptionsToken()).useValue(given),
      });
      expect(refused).toBeInstanceOf(StartupRefusal);
      expect((refused as StartupRefusal).message).toContain(error);
    });
  });
});
