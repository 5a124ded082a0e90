import { Controller, ExecutionContext, Get, INestApplication, Type } from '@nestjs/common';
import {
  getOptionsToken,
  getStorageToken,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import type { TestingModuleBuilder } from '@nestjs/testing';
import Redis from 'ioredis';
import type { IncomingHttpHeaders } from 'node:http';
import { SystemClock } from '../src/common/clock';
import { StartupRefusal } from '../src/common/startup-refusal';
import { DailyLimitGuard } from '../src/rate-limit/daily-limit.guard';
import { DailyLimitStorage, DAY_MS } from '../src/rate-limit/daily-limit.storage';
import { RATE_LIMIT_HEADERS } from '../src/rate-limit/daily-limit.policy';
import { RecordingLogger } from '../src/testing/recording-logger';
import { INVALID, limited } from '../src/testing/bodies';
import { nextClients } from '../src/testing/clients';
import { OverLimitStorage, startRedisStore, todayKey } from '../src/testing/daily-limit';
import { depreciate, HttpAnswer, send } from '../src/testing/http';
import { RedisServer } from '../src/testing/redis-server';
import { describeWithTools } from '../src/testing/system-tools';
import { listenTestApp, startupFailure } from '../src/testing/test-app';

/** Two clients of this suite (each test has an app of its own, so its own budgets). */
const [ALICE, BOB] = nextClients(2);
const POLITE = 'Slow down, fleet';

/** A team's module: two routes, counted like every route. */
@Controller('api/fleet')
class FleetController {
  @Get('a')
  a(): { route: 'a' } {
    return { route: 'a' };
  }

  @Get('b')
  b(): { route: 'b' } {
    return { route: 'b' };
  }
}

const headerOf = (headers: IncomingHttpHeaders, name: string) => headers[name.toLowerCase()];
const remaining = (answer: HttpAnswer) => headerOf(answer.headers, RATE_LIMIT_HEADERS.remaining);

// What each subclass below saw: an extension point honoured is an extension point called.
let seen: unknown[] = [];

/** Requests with `X-Internal: yes` are not counted. */
class InternalCallers extends DailyLimitGuard {
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const headers = context.switchToHttp().getRequest<{ headers: IncomingHttpHeaders }>().headers;
    return Promise.resolve(headers['x-internal'] === 'yes');
  }
}

/** A team's members (`X-Team`) share one budget, whatever their address. */
class TeamBudget extends DailyLimitGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const team = (req.headers as IncomingHttpHeaders)['x-team'];
    return typeof team === 'string' ? Promise.resolve(`team:${team}`) : super.getTracker(req);
  }
}

/** A budget per client and route. */
class PerRouteBudget extends DailyLimitGuard {
  protected override generateKey(context: ExecutionContext, tracker: string, name: string) {
    return `${super.generateKey(context, tracker, name)}:${context.getHandler().name}`;
  }
}

class SeesEachRequest extends DailyLimitGuard {
  protected override handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { limit, ttl, throttler } = request;
    seen.push({ limit, ttl, name: throttler.name });
    return super.handleRequest(request);
  }
}

/** Logs a client over its limit and lets it through. */
class SoftLimit extends DailyLimitGuard {
  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    seen.push(detail);
    return Promise.resolve();
  }
}

class PoliteMessage extends DailyLimitGuard {
  protected override getErrorMessage(): Promise<string> {
    return Promise.resolve(POLITE);
  }
}

class PoliteField extends DailyLimitGuard {
  protected override errorMessage = POLITE;
}

class SeesEachHeader extends DailyLimitGuard {
  protected override setResponseHeader(res: Record<string, unknown>, name: string, value: number) {
    seen.push(name);
    super.setResponseHeader(res, name, value);
  }
}

class SeesEachContext extends DailyLimitGuard {
  protected override getRequestResponse(context: ExecutionContext) {
    seen.push(context.getHandler().name);
    return super.getRequestResponse(context);
  }
}

class FleetHeaders extends DailyLimitGuard {
  protected override headerPrefix = 'X-Fleet';
}

describe("DailyLimitGuard's extension points, as a subclass overrides them (e2e, in process)", () => {
  let app: INestApplication | undefined;
  let port: number;

  /** The API with `guard` as its global guard (overrideProvider), and a team's FleetController. */
  const start = async (
    guard: Type<DailyLimitGuard>,
    more: (builder: TestingModuleBuilder) => TestingModuleBuilder = (builder) => builder,
  ) => {
    ({ app, port } = await listenTestApp({
      extra: { controllers: [FleetController] },
      override: (builder) => more(builder.overrideProvider(DailyLimitGuard).useClass(guard)),
    }));
  };
  const overLimit = (builder: TestingModuleBuilder) =>
    builder.overrideProvider(DailyLimitStorage).useValue(new OverLimitStorage(60));
  const get = (path: string, from = ALICE, headers: Record<string, string> = {}) =>
    send({ port, path, localAddress: from, headers });

  beforeEach(() => (seen = []));
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('takes its own path with nothing overridden, and ThrottlerGuard.canActivate otherwise', async () => {
    const flow = jest.spyOn(ThrottlerGuard.prototype, 'canActivate');
    try {
      await start(DailyLimitGuard);
      expect(remaining(await get('/api/fleet/a'))).toBe('99');
      expect(flow).not.toHaveBeenCalled();
      await app?.close();
      // getRequestResponse is honoured on both paths; the others move it onto the throttler's.
      await start(SeesEachContext);
      expect(remaining(await get('/api/fleet/a'))).toBe('99');
      expect(flow).not.toHaveBeenCalled();
      await app?.close();
      await start(SeesEachRequest);
      expect(remaining(await get('/api/fleet/a'))).toBe('99');
      expect(flow).toHaveBeenCalledTimes(1);
    } finally {
      flow.mockRestore();
    }
  });

  it('shouldSkip: a request it skips is not counted and has no rate-limit headers', async () => {
    await start(InternalCallers);
    const internal = await get('/api/fleet/a', ALICE, { 'x-internal': 'yes' });
    expect([internal.status, remaining(internal)]).toEqual([200, undefined]);
    expect(remaining(await get('/api/fleet/a'))).toBe('99');
  });

  it("getTracker: the tracker it names is the budget's, across addresses", async () => {
    await start(TeamBudget);
    const red = { 'x-team': 'red' };
    expect(remaining(await get('/api/fleet/a', ALICE, red))).toBe('99');
    expect(remaining(await get('/api/fleet/b', BOB, red))).toBe('98');
    expect(remaining(await get('/api/fleet/a', BOB))).toBe('99');
  });

  it('generateKey: the key it makes is the budget, here one per route', async () => {
    await start(PerRouteBudget);
    expect(remaining(await get('/api/fleet/a'))).toBe('99');
    expect(remaining(await get('/api/fleet/b'))).toBe('99');
    expect(remaining(await get('/api/fleet/a'))).toBe('98');
  });

  it('handleRequest: it gets the daily throttler, and its super counts', async () => {
    await start(SeesEachRequest);
    expect(remaining(await get('/api/fleet/a'))).toBe('99');
    expect(seen).toEqual([{ limit: 100, ttl: DAY_MS, name: 'default' }]);
  });

  it("throwThrottlingException: it gets the refusal's detail, and decides (here, to let it pass)", async () => {
    await start(SoftLimit, overLimit);
    const answer = await get('/api/fleet/a');
    expect([answer.status, answer.json]).toEqual([200, { route: 'a' }]);
    expect(headerOf(answer.headers, RATE_LIMIT_HEADERS.retryAfter)).toBe('60');
    expect(seen).toEqual([
      {
        limit: 100,
        ttl: DAY_MS,
        key: ALICE,
        tracker: ALICE,
        totalHits: 101,
        timeToExpire: 60,
        isBlocked: true,
        timeToBlockExpire: 60,
      },
    ]);
  });

  it.each([
    ['getErrorMessage', PoliteMessage],
    ['the errorMessage field', PoliteField],
  ])('%s: the 429 says its message, with the rate-limit headers', async (_point, guard) => {
    await start(guard, overLimit);
    const answer = await get('/api/fleet/a');
    expect([answer.status, answer.json]).toEqual([429, { statusCode: 429, message: POLITE }]);
    expect(headerOf(answer.headers, RATE_LIMIT_HEADERS.retryAfter)).toBe('60');
  });

  it("setResponseHeader: it writes each of the contract's rate-limit headers", async () => {
    await start(SeesEachHeader);
    const answer = await get('/api/fleet/a');
    expect(seen).toEqual([
      RATE_LIMIT_HEADERS.limit,
      RATE_LIMIT_HEADERS.remaining,
      RATE_LIMIT_HEADERS.reset,
      RATE_LIMIT_HEADERS.policy,
      RATE_LIMIT_HEADERS.state,
    ]);
    expect(answer.headers).toMatchObject({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'ratelimit-policy': '"daily";q=100;w=86400',
    });
  });

  it('getRequestResponse: the request and answer it gives are the ones counted', async () => {
    await start(SeesEachContext);
    expect(remaining(await get('/api/fleet/b'))).toBe('99');
    expect(seen).toContain('b');
  });

  it("leaves the early refusal off: it would answer a client over its limit without the subclass's code", async () => {
    await start(PoliteMessage);
    for (let i = 0; i < 100; i++) expect((await depreciate(port)).status).toBe(200);
    const refused = await depreciate(port);
    expect(refused.json).toEqual({ statusCode: 429, message: POLITE });
    // With DailyLimitGuard itself, this would be the early 429 (the contract's message).
    expect((await depreciate(port, { body: '{' })).json).toEqual(INVALID);
    expect((await depreciate(port)).json).toEqual({ statusCode: 429, message: POLITE });
  });

  it('refuses to start, in one line naming the subclass, with another headerPrefix', async () => {
    const refused = await startupFailure({
      override: (builder) => builder.overrideProvider(DailyLimitGuard).useClass(FleetHeaders),
    });
    expect(refused).toBeInstanceOf(StartupRefusal);
    expect((refused as StartupRefusal).message).toBe(
      "DailyLimitGuard writes the contract's rate-limit headers (X-RateLimit-*): headerPrefix " +
        "'X-Fleet' of FleetHeaders is not supported",
    );
  });

  describe('the throttler options that ask for the same, honoured alike', () => {
    /** ThrottlerModule's options as RateLimitModule makes them, and `more`. */
    const options = (more: Partial<ThrottlerModuleOptions>) => (builder: TestingModuleBuilder) =>
      builder.overrideProvider(getOptionsToken()).useFactory({
        inject: [DailyLimitStorage],
        factory: (storage: DailyLimitStorage) => ({
          throttlers: [{ limit: 100, ttl: DAY_MS }],
          storage,
          ...more,
        }),
      });

    it('skipIf', async () => {
      const skipIf = (context: ExecutionContext) =>
        context.switchToHttp().getRequest<{ path: string }>().path === '/api/fleet/b';
      await start(DailyLimitGuard, options({ skipIf }));
      expect(remaining(await get('/api/fleet/b'))).toBeUndefined();
      expect(remaining(await get('/api/fleet/a'))).toBe('99');
    });

    it('getTracker and generateKey', async () => {
      await start(
        DailyLimitGuard,
        options({ getTracker: () => 'everyone', generateKey: (_c, tracker) => `fleet:${tracker}` }),
      );
      expect(remaining(await get('/api/fleet/a', ALICE))).toBe('99');
      expect(remaining(await get('/api/fleet/a', BOB))).toBe('98');
    });

    it('errorMessage', async () => {
      await start(DailyLimitGuard, (builder) =>
        options({ errorMessage: POLITE })(overLimit(builder)),
      );
      expect((await get('/api/fleet/a')).json).toEqual({ statusCode: 429, message: POLITE });
    });
  });

  it("answers the contract's 429 with DailyLimitGuard itself", async () => {
    await start(DailyLimitGuard, overLimit);
    expect((await get('/api/fleet/a')).json).toEqual(limited());
  });
});

describeWithTools(['redis-server'], 'the Redis store as ThrottlerModule’s storage (e2e)', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(() => redis?.stop());

  it('is started once and stopped once, though Nest calls its hooks under both tokens', async () => {
    const logger = new RecordingLogger();
    const store = await startRedisStore(redis.url, new SystemClock(), logger);
    const init = jest.spyOn(store, 'onModuleInit');
    const shutdown = jest.spyOn(store, 'onApplicationShutdown');
    const { app, port } = await listenTestApp({
      override: (builder) => builder.overrideProvider(DailyLimitStorage).useValue(store),
    });
    try {
      expect(app.get(getStorageToken())).toBe(store);
      const answer = await depreciate(port, { from: ALICE });
      expect(remaining(answer)).toBe('99');
      const inspector = new Redis(redis.url);
      expect(await inspector.exists(todayKey(ALICE))).toBe(1);
      inspector.disconnect();
    } finally {
      await app.close();
    }
    expect([init.mock.calls.length, shutdown.mock.calls.length]).toEqual([2, 2]);
    const shared = logger.lines.filter((line) => line.startsWith('log: Daily counters shared'));
    expect(shared).toHaveLength(1);
  });
});
