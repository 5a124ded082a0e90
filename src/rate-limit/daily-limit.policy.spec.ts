import type { Request, Response } from 'express';
import { Clock } from '../common/clock';
import { EarlyRefusal } from './early-refusal';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';

const clock: Clock = { now: () => new Date('2026-11-21T12:00:00.000Z') };

/** A request as Express would hand it over, from 203.0.113.5 unless told. */
const requestTo = (method: string, path: string, route?: { path: string }) =>
  ({ method, path, route, ip: '203.0.113.5', socket: {} }) as unknown as Request;

function fakeResponse() {
  const headers: Record<string, unknown> = {};
  const response = {
    statusCode: 200,
    body: undefined as unknown,
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = value),
    end: (body: unknown) => (response.body = body),
  };
  return { response, headers, asExpress: response as unknown as Response };
}

describe('EarlyRefusal', () => {
  let storage: MemoryDailyLimitStorage;
  let early: EarlyRefusal;

  /** Runs the middleware: whether it passed the request on, and what it answered. */
  const through = (request: Request) => {
    const { response, headers, asExpress } = fakeResponse();
    let passed = false;
    early.middleware(request, asExpress, () => (passed = true));
    return { passed, status: response.statusCode, body: response.body, headers };
  };

  beforeEach(() => {
    storage = new MemoryDailyLimitStorage(clock);
    early = new EarlyRefusal();
    early.enable(1, storage);
    storage.hit('203.0.113.5', 1);
  });

  it('passes everything on until the guard has refused on a route', () => {
    expect(through(requestTo('POST', '/api/depreciate')).passed).toBe(true);
  });

  it('answers the 429 itself on a route the guard refused on, for a client over the limit', () => {
    const refused = requestTo('POST', '/api/depreciate', { path: '/api/depreciate' });
    early.learn(refused, '203.0.113.5');
    const answer = through(requestTo('POST', '/api/depreciate'));
    expect(answer).toMatchObject({ passed: false, status: 429 });
    expect(String(answer.body)).toBe(
      '{"statusCode":429,"message":"Rate limit exceeded. Maximum 1 requests per 24 hours."}',
    );
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(answer.body).length,
      'x-ratelimit-remaining': 0,
      'retry-after': 43_200,
    });
    // Another method or path, or a client under the limit, goes on to the guard.
    expect(through(requestTo('GET', '/api/depreciate')).passed).toBe(true);
    expect(through(requestTo('POST', '/api/other')).passed).toBe(true);
    const other = { ...requestTo('POST', '/api/depreciate'), ip: '203.0.113.6' } as Request;
    expect(through(other).passed).toBe(true);
  });

  it('learns no route with parameters, nor one whose key is not the client address', () => {
    early.learn(requestTo('GET', '/api/items/7', { path: '/api/items/:id' }), '203.0.113.5');
    early.learn(requestTo('POST', '/api/depreciate', { path: '/api/depreciate' }), 'tenant-42');
    expect(through(requestTo('GET', '/api/items/7')).passed).toBe(true);
    expect(through(requestTo('POST', '/api/depreciate')).passed).toBe(true);
  });

  it('learns nothing before the guard has told it the limit and storage', () => {
    const idle = new EarlyRefusal();
    idle.learn(requestTo('POST', '/api/depreciate', { path: '/api/depreciate' }), '203.0.113.5');
    let passed = false;
    idle.middleware(requestTo('POST', '/api/depreciate'), fakeResponse().asExpress, () => {
      passed = true;
    });
    expect(passed).toBe(true);
  });

  it('leaves every request to the guard when the storage cannot tell or fails', () => {
    const plain = new EarlyRefusal();
    plain.enable(1, { increment: () => Promise.reject(new Error('unused')) });
    plain.learn(requestTo('POST', '/api/depreciate', { path: '/api/depreciate' }), '203.0.113.5');
    let passed = false;
    plain.middleware(requestTo('POST', '/api/depreciate'), fakeResponse().asExpress, () => {
      passed = true;
    });
    expect(passed).toBe(true);

    early.learn(requestTo('POST', '/api/depreciate', { path: '/api/depreciate' }), '203.0.113.5');
    jest.spyOn(storage, 'refuseAtOnce').mockImplementation(() => {
      throw new Error('store failed');
    });
    expect(through(requestTo('POST', '/api/depreciate')).passed).toBe(true);
  });
});
