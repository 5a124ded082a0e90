import { ConfigService } from '@nestjs/config';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { SettableClock } from '../testing/settable-clock';
import { Environment } from '../config/environment';
import { DailyLimitPolicy } from './daily-limit.policy';
import type { DailyLimitStorage } from './daily-limit.storage';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import { ErrorResponses } from '../common/error-responses';
import { WarmUpState } from '../common/warm-up-state';

const clock = new SettableClock('2026-11-21T12:00:00.000Z');
const CLIENT = '203.0.113.5';
const REFUSAL =
  '{"statusCode":429,"message":"Rate limit exceeded. Maximum 1 requests per 24 hours."}';

/** A request as Express hands it over, from CLIENT unless told; `route` once Express routed it. */
const requestTo = (method: string, path: string, route?: { path: string }, ip = CLIENT) =>
  ({ method, path, route, ip, socket: {}, complete: true, headers: {} }) as unknown as Request;
const routed = (ip = CLIENT) =>
  requestTo('POST', '/api/depreciate', { path: '/api/depreciate' }, ip);

function fakeResponse(req: Request = routed()) {
  const headers: Record<string, unknown> = {};
  const response = {
    req,
    socket: null,
    statusCode: 200,
    body: undefined as unknown,
    hasHeader: (name: string) => name.toLowerCase() in headers,
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = value),
    end: (body: unknown) => (response.body = body),
  };
  return { response, headers, asExpress: response as unknown as Response };
}

describe('DailyLimitPolicy', () => {
  let storage: MemoryDailyLimitStorage;
  let policy: DailyLimitPolicy;
  let warmUp: WarmUpState;

  const config = (limit: number) =>
    ({ get: () => limit }) as unknown as ConfigService<Environment, true>;

  /** The guard's part: counts the request; what it threw, and the headers it wrote. */
  const admit = async (request: Request) => {
    const { headers, asExpress } = fakeResponse();
    const thrown = await Promise.resolve()
      .then(() => policy.admit(request, asExpress))
      .catch((e: unknown) => e);
    return { thrown, headers };
  };

  /** The early refusal: whether it passed the request on, and what it answered. */
  const early = (request: Request) => {
    const { response, headers, asExpress } = fakeResponse(request);
    let passed = false;
    policy.refuseEarly(request, asExpress, () => (passed = true));
    return { passed, status: response.statusCode, body: response.body, headers };
  };

  beforeEach(() => {
    storage = new MemoryDailyLimitStorage(clock);
    warmUp = new WarmUpState();
    policy = new DailyLimitPolicy(config(1), storage, new ErrorResponses([]), warmUp);
  });

  it('admits the limit, with headers, then throws the refusal with Retry-After', async () => {
    expect(await admit(routed())).toEqual({
      thrown: undefined,
      headers: {
        'x-ratelimit-limit': '1',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '43200',
        'ratelimit-policy': '"daily";q=1;w=86400',
        ratelimit: '"daily";r=0;t=43200',
      },
    });
    const refused = await admit(routed());
    expect(refused.thrown).toBeInstanceOf(ThrottlerException);
    expect((refused.thrown as ThrottlerException).message).toBe(
      'Rate limit exceeded. Maximum 1 requests per 24 hours.',
    );
    expect(refused.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '43200' });
  });

  it('refuses nothing early until the guard has refused on a route', async () => {
    await admit(routed());
    expect(early(requestTo('POST', '/api/depreciate')).passed).toBe(true);
  });

  it('then answers the same 429 early on that route, for a client over its limit only', async () => {
    await admit(routed());
    await admit(routed());
    const answer = early(requestTo('POST', '/api/depreciate'));
    expect(answer).toMatchObject({ passed: false, status: 429 });
    expect(String(answer.body)).toBe(REFUSAL);
    expect(answer.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-length': REFUSAL.length,
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '43200',
      'ratelimit-policy': '"daily";q=1;w=86400',
      ratelimit: '"daily";r=0;t=43200',
      'retry-after': '43200',
    });
    // The early refusal is counted, as the guard would count it.
    expect(storage.refuseAtOnce(CLIENT, 1)?.totalHits).toBe(4);
    // Every spelling Express routes to the same handler is refused alike.
    for (const path of ['/api/depreciate/', '/API/Depreciate']) {
      expect(early(requestTo('POST', path))).toMatchObject({ passed: false, status: 429 });
    }
    // Another method or path, or a client under the limit, goes on to the guard.
    expect(early(requestTo('GET', '/api/depreciate')).passed).toBe(true);
    expect(early(requestTo('POST', '/api/other')).passed).toBe(true);
    expect(early(requestTo('POST', '/api/depreciate', undefined, '203.0.113.6')).passed).toBe(true);
  });

  it('remembers no route with parameters', async () => {
    const withParameter = requestTo('GET', '/api/items/7', { path: '/api/items/:id' });
    await admit(withParameter);
    await admit(withParameter);
    expect(early(requestTo('GET', '/api/items/7')).passed).toBe(true);
  });

  it("counts none of the warm-up's requests: each is a day's first, the store untouched", () => {
    const hit = jest.spyOn(storage, 'hit');
    warmUp.running = true;
    for (let n = 0; n < 3; n += 1) {
      const { headers, asExpress } = fakeResponse();
      expect(policy.admit(routed(), asExpress)).toBeUndefined();
      expect(headers['x-ratelimit-remaining']).toBe('0');
    }
    expect(hit).not.toHaveBeenCalled();
    warmUp.running = false;
    expect(policy.admit(routed(), fakeResponse().asExpress)).toBeUndefined();
    expect(hit).toHaveBeenCalledTimes(1);
  });

  it('counts synchronously with a store that answers at once, and refuses by throwing', () => {
    const { headers, asExpress } = fakeResponse();
    expect(policy.admit(routed(), asExpress)).toBeUndefined();
    expect(headers['x-ratelimit-remaining']).toBe('0');
    expect(() => policy.admit(routed(), asExpress)).toThrow(policy.refusal);
  });

  it("counts for ThrottlerGuard's flow: the record only, no header, no refusal, nothing once answered", () => {
    const { headers, response, asExpress } = fakeResponse();
    expect(policy.count(asExpress, 'k')).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(policy.count(asExpress, 'k')).toMatchObject({ totalHits: 2, isBlocked: true });
    expect(headers).toEqual({});
    Object.assign(response, { writableEnded: true });
    expect(policy.count(asExpress, 'k')).toBeUndefined();
    expect(storage.refuseAtOnce('k', 1)?.totalHits).toBe(3);
    // Nothing remembered for the early refusal: that is the guard's own path alone.
    expect(early(requestTo('POST', '/api/depreciate', undefined, 'k')).passed).toBe(true);
  });

  it('waits for a store that answers with a promise', async () => {
    const record = storage.hit(CLIENT, 1);
    jest.spyOn(storage as DailyLimitStorage, 'hit').mockReturnValue(Promise.resolve(record));
    const { headers, asExpress } = fakeResponse();
    const admitted = policy.admit(routed(), asExpress);
    expect(admitted).toBeInstanceOf(Promise);
    await admitted;
    expect(headers['x-ratelimit-remaining']).toBe('0');
  });

  it('leaves the request to the guard when the store fails', async () => {
    await admit(routed());
    await admit(routed());
    jest.spyOn(storage, 'refuseAtOnce').mockImplementation(() => {
      throw new Error('store failed');
    });
    expect(early(requestTo('POST', '/api/depreciate')).passed).toBe(true);
  });
});
