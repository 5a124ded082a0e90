import {
  depreciate,
  DepreciateOptions,
  DepreciateResult,
  DepreciationRequest,
  ERROR_STATUSES,
  FetchLike,
  parseRateLimit,
  parseRetryAfter,
} from '../src/index.js';

/**
 * The client's mapping of answers to results, with a fetch that answers what a test says. The
 * statuses the built server gives are driven for real in test/client.e2e-spec.ts; a 500 it cannot
 * be made to give (nothing a client sends makes it fail), so this file is where a 500 is mapped.
 */
const REQUEST: DepreciationRequest = {
  purchaseYear: 2020,
  purchasePrice: 25000,
  vehicleType: 'sedan',
  currentMileage: 50000,
};

const SUCCESS = {
  success: true,
  data: {
    currentValue: 20500,
    totalDepreciation: 4500,
    totalDepreciationPercent: 18,
    monthlyDepreciation: 375,
    yearlyBreakdown: [
      { year: 2025, age: 0, value: 25000, depreciation: 0, depreciationPercent: 0 },
      { year: 2026, age: 1, value: 20500, depreciation: 4500, depreciationPercent: 18 },
    ],
  },
  meta: { vehicleType: 'sedan', vehicleAge: 1, calculatedAt: '2026-11-21T09:30:00.123Z' },
};

/** The headers of a counted answer, as src/rate-limit/rate-limit-headers.ts writes them. */
const COUNTED = {
  'X-RateLimit-Limit': '100',
  'X-RateLimit-Remaining': '97',
  'X-RateLimit-Reset': '52200',
  'RateLimit-Policy': '"daily";q=100;w=86400',
  RateLimit: '"daily";r=97;t=52200',
};

interface Call {
  url: string;
  init: RequestInit;
}

/** A fetch that records its calls and answers `status` with `body` (JSON unless a string). */
function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
  const calls: Call[] = [];
  const fetch: FetchLike = (url, init) => {
    calls.push({ url, init });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return Promise.resolve(new Response(text, { status, headers }));
  };
  return { fetch, calls };
}

const call = (fetch: FetchLike, options = {}) =>
  depreciate(REQUEST, { baseUrl: 'http://api.test', fetch, ...options });

describe('depreciate', () => {
  it('POSTs the request as JSON to <baseUrl>/api/depreciate', async () => {
    const { fetch, calls } = answering(200, SUCCESS);
    await depreciate(REQUEST, { baseUrl: 'https://api.test/prefix/', fetch });
    expect(calls).toHaveLength(1);
    const [{ url, init }] = calls;
    expect(url).toBe('https://api.test/prefix/api/depreciate');
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual(REQUEST);
    const headers = init.headers as Headers;
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('accept')).toBe('application/json');
  });

  it('sends projectionYears and maps the answer with its projection to kind ok', async () => {
    const projection = [
      { year: 2027, age: 2, value: 17937.5, depreciation: 2562.5, depreciationPercent: 12.5 },
    ];
    const answer = { ...SUCCESS, data: { ...SUCCESS.data, projection } };
    const { fetch, calls } = answering(200, answer);
    const result = await depreciate({ ...REQUEST, projectionYears: 1 }, { fetch });
    expect(JSON.parse(calls[0].init.body as string)).toEqual({ ...REQUEST, projectionYears: 1 });
    expect(result.kind === 'ok' && result.body.data.projection).toEqual(projection);
  });

  it('uses the page origin without a base URL, and adds or replaces headers', async () => {
    const { fetch, calls } = answering(200, SUCCESS);
    const signal = new AbortController().signal;
    await depreciate(REQUEST, {
      fetch,
      signal,
      headers: { 'X-Request-Id': 'abc', 'content-type': 'text/plain' },
    });
    const [{ url, init }] = calls;
    expect(url).toBe('/api/depreciate');
    expect(init.signal).toBe(signal);
    const headers = init.headers as Headers;
    expect(headers.get('x-request-id')).toBe('abc');
    expect(headers.get('content-type')).toBe('text/plain');
  });

  it('maps 200 to kind ok with the body and the rate limit as numbers', async () => {
    const result = await call(answering(200, SUCCESS, COUNTED).fetch);
    expect(result).toMatchObject({
      kind: 'ok',
      status: 200,
      body: SUCCESS,
      rateLimit: { limit: 100, remaining: 97, resetSeconds: 52200 },
      retryAfterSeconds: null,
    });
    if (result.kind === 'ok') {
      expect(result.headers.get('ratelimit')).toBe('"daily";r=97;t=52200');
      expect(result.body.data.yearlyBreakdown).toHaveLength(2);
    }
  });

  it.each(ERROR_STATUSES)(
    'maps %d with the contract error body to kind error with that status',
    async (status) => {
      const body = { statusCode: status, message: `the message of ${status}` };
      const result = await call(answering(status, body).fetch);
      expect(result).toMatchObject({ kind: 'error', status, body, rateLimit: null });
    },
  );

  it('maps a 500 (which no request can make the server give) to kind error', async () => {
    const body = { statusCode: 500, message: 'Internal server error' };
    const result = await call(answering(500, body, COUNTED).fetch);
    expect(result).toMatchObject({
      kind: 'error',
      status: 500,
      body,
      rateLimit: { limit: 100, remaining: 97, resetSeconds: 52200 },
    });
  });

  it('maps a 429 with Retry-After and the rate-limit headers', async () => {
    const body = {
      statusCode: 429,
      message: 'Rate limit exceeded. Maximum 100 requests per 24 hours.',
    };
    const headers = {
      ...COUNTED,
      'X-RateLimit-Remaining': '0',
      RateLimit: '"daily";r=0;t=3600',
      'X-RateLimit-Reset': '3600',
      'Retry-After': '3600',
    };
    const result = await call(answering(429, body, headers).fetch);
    expect(result).toMatchObject({
      kind: 'error',
      status: 429,
      rateLimit: { limit: 100, remaining: 0, resetSeconds: 3600 },
      retryAfterSeconds: 3600,
    });
  });

  it('maps a 503 over the connection cap with its Retry-After of one second', async () => {
    const body = {
      statusCode: 503,
      message: 'Too many connections from this client: retry in a second',
    };
    const result = await call(answering(503, body, { 'Retry-After': '1' }).fetch);
    expect(result).toMatchObject({
      kind: 'error',
      status: 503,
      rateLimit: null,
      retryAfterSeconds: 1,
    });
  });

  it.each([
    [404, { statusCode: 404, message: 'Cannot POST /v2/api/depreciate' }, 'status'],
    [502, '<html>Bad Gateway</html>', 'status'],
    [201, SUCCESS, 'status'],
    [503, '<html>Service Unavailable</html>', 'body'],
    [429, { statusCode: 400, message: 'a status that is not the answer’s' }, 'body'],
    [400, { message: 'no statusCode' }, 'body'],
    [200, { success: false }, 'body'],
    [200, '', 'body'],
  ] as const)('maps %d with %j to kind unexpected (%s)', async (status, body, reason) => {
    const result = await call(answering(status, body).fetch);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    expect(result).toMatchObject({ kind: 'unexpected', reason, status, text });
    if (result.kind === 'unexpected') {
      expect(result.body).toEqual(typeof body === 'string' ? undefined : body);
    }
  });

  it('resolves a fetch that rejects to kind network with status 0 and the error', async () => {
    const failure = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const result = await call(() => Promise.reject(failure));
    expect(result).toEqual({ kind: 'network', status: 0, error: failure });
  });

  it('resolves a body that fails half-way to kind network', async () => {
    const failure = new TypeError('terminated');
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"success":'));
        controller.error(failure);
      },
    });
    const result = await call(() => Promise.resolve(new Response(broken, { status: 200 })));
    expect(result).toMatchObject({ kind: 'network', status: 0 });
  });

  it('resolves a request its signal aborted to kind aborted with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    const fetch: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
      });
    const pending = call(fetch, { signal: controller.signal });
    controller.abort(reason);
    await expect(pending).resolves.toEqual({ kind: 'aborted', status: 0, error: reason });
  });

  it('never rejects, even when the fetch throws synchronously or the base URL is wrong', async () => {
    const results: DepreciateResult[] = await Promise.all([
      call(() => {
        throw new Error('not a fetch');
      }),
      depreciate(REQUEST, { baseUrl: 'not a url' }),
    ]);
    expect(results.map((result) => result.kind)).toEqual(['network', 'network']);
  });

  // What plain JavaScript callers pass: each is an argument it cannot use, named in a TypeError.
  it.each<[string, unknown, unknown, RegExp]>([
    ['null options', REQUEST, null, /^options must be an object, not null$/],
    ['a number as options', REQUEST, 42, /^options must be an object, not number$/],
    ['a string as options', REQUEST, 'http://api.test', /^options must be an object, not string$/],
    ['a null baseUrl', REQUEST, { baseUrl: null }, /^options\.baseUrl must be a string, not null$/],
    ['a number as baseUrl', REQUEST, { baseUrl: 3000 }, /^options\.baseUrl must be a string/],
    [
      'a fetch that is not a function',
      REQUEST,
      { baseUrl: 'http://api.test', fetch: 'fetch' },
      /^options\.fetch must be a function, not string$/,
    ],
    [
      'a signal that is not an AbortSignal',
      REQUEST,
      { baseUrl: 'http://api.test', signal: {} },
      /^options\.signal must be an AbortSignal/,
    ],
    ['headers that are not headers', REQUEST, { baseUrl: 'http://api.test', headers: 7 }, /./],
    [
      'a header name that is not one',
      REQUEST,
      { baseUrl: 'http://api.test', headers: { 'a b': 'c' } },
      /./,
    ],
    [
      'a request JSON cannot write',
      { purchaseYear: 2020n },
      { baseUrl: 'http://api.test' },
      /BigInt/,
    ],
    ['no request', undefined, { baseUrl: 'http://api.test' }, /^request cannot be written as JSON/],
  ])(
    'resolves %s to kind invalid-argument, sending nothing',
    async (_case, request, options, message) => {
      const { fetch, calls } = answering(200, SUCCESS);
      const withFetch =
        options !== null && typeof options === 'object' && !('fetch' in options)
          ? { ...options, fetch }
          : options;
      const result = await depreciate(request as DepreciationRequest, withFetch as never);
      expect([result.kind, result.status]).toEqual(['invalid-argument', 0]);
      // A TypeError, of this realm or of fetch's (Headers raises its own).
      const { error } = result as { error: Error };
      expect(error.name).toBe('TypeError');
      expect(error.message).toMatch(message);
      expect(calls).toEqual([]);
    },
  );

  it('resolves options with a getter that throws to kind invalid-argument', async () => {
    const failure = new TypeError('no');
    const options = Object.defineProperty({}, 'baseUrl', {
      get() {
        throw failure;
      },
    });
    await expect(depreciate(REQUEST, options)).resolves.toEqual({
      kind: 'invalid-argument',
      status: 0,
      error: failure,
    });
  });

  it('takes a null signal as none, and any object shaped as a signal (a polyfill, another realm)', async () => {
    const { fetch, calls } = answering(200, SUCCESS);
    const shaped = { aborted: false, addEventListener: () => undefined };
    for (const signal of [null, shaped]) {
      const options = { baseUrl: 'http://api.test', fetch, signal } as unknown as DepreciateOptions;
      expect((await depreciate(REQUEST, options)).kind).toBe('ok');
    }
    expect(calls.map((c) => c.init.signal)).toEqual([null, shaped]);
  });

  it('takes undefined options and undefined fields as their defaults', async () => {
    const { fetch, calls } = answering(200, SUCCESS);
    const result = await depreciate(REQUEST, {
      baseUrl: 'http://api.test',
      fetch,
      signal: undefined,
      headers: undefined,
    });
    expect(result.kind).toBe('ok');
    expect(calls.map((c) => c.url)).toEqual(['http://api.test/api/depreciate']);
  });
});

describe('parseRateLimit', () => {
  const parse = (headers: Record<string, string>) => parseRateLimit(new Headers(headers));

  it('reads the X-RateLimit trio as numbers', () => {
    expect(parse(COUNTED)).toEqual({ limit: 100, remaining: 97, resetSeconds: 52200 });
  });

  it("falls back to the IETF draft's RateLimit-Policy q and RateLimit r and t", () => {
    expect(
      parse({ 'RateLimit-Policy': '"daily";q=50;w=86400', RateLimit: '"daily";r=0;t=61' }),
    ).toEqual({ limit: 50, remaining: 0, resetSeconds: 61 });
    expect(parse({ ...COUNTED, 'X-RateLimit-Remaining': 'many' })?.remaining).toBe(97);
  });

  it('is null on an answer that was not counted, or when a number is missing or not whole', () => {
    expect(parse({})).toBeNull();
    expect(parse({ 'Retry-After': '1' })).toBeNull();
    expect(parse({ 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '3' })).toBeNull();
    expect(
      parse({
        'X-RateLimit-Limit': '100',
        'X-RateLimit-Remaining': '-1',
        'X-RateLimit-Reset': '5',
      }),
    ).toBeNull();
    expect(
      parse({ 'X-RateLimit-Limit': '1e3', 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': '5' }),
    ).toBeNull();
    expect(parse({ RateLimit: '"daily";r=1.5;t=5', 'RateLimit-Policy': '"daily";q=9' })).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 21, 9, 30, 0);

  it('reads delay-seconds as they are', () => {
    expect(parseRetryAfter('1', now)).toBe(1);
    expect(parseRetryAfter(' 52200 ', now)).toBe(52200);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('turns an HTTP date into whole seconds from now, 0 once past', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:31:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:30:00 GMT', now + 500)).toBe(0);
    expect(parseRetryAfter('Fri, 20 Nov 2026 09:30:00 GMT', now)).toBe(0);
  });

  it('is null when absent or neither', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    for (const value of ['', 'soon', '-5', '1.5', '2e3', 'Sat, 99 Nov 2026 GMT']) {
      expect(parseRetryAfter(value, now)).toBeNull();
    }
  });
});
