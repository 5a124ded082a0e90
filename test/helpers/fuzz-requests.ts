import fc from 'fast-check';
import { gzipSync } from 'node:zlib';

/** One generated request, as bytes, with what the checks need to know about it. */
export interface FuzzRequest {
  method: string;
  bytes: Buffer;
  /** The client hangs up mid-body: no answer is expected. */
  abort: boolean;
}

const VEHICLE_TYPES = [
  'sedan',
  'suv',
  'truck',
  'luxury',
  'economy',
  'sports',
  'ev',
  'motorcycle',
  'rv',
];

/** A header value or path piece: printable ASCII, sometimes any byte (CR, LF, NUL, 8-bit). */
const text = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.string({ maxLength }), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength }), weight: 1 },
    {
      arbitrary: fc.uint8Array({ maxLength }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      weight: 1,
    },
  );

const numberText = fc.oneof(
  fc.integer({ min: 1880, max: 2040 }).map(String),
  fc.double({ noNaN: true }).map((value) => JSON.stringify(value)),
  fc.integer({ min: 1, max: 2000 }).map((zeros) => `1${'0'.repeat(zeros)}`),
  fc.constantFrom(
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '2.02e3',
    '2020.0',
    '9007199254740993',
    '0.1e1',
  ),
  fc.integer({ min: 1, max: 600 }).map((zeros) => `0.${'0'.repeat(zeros)}1`),
);

/** Anything JSON in a field: numbers of every shape, strings, the other JSON values. */
const fieldText = fc.oneof(
  { arbitrary: numberText, weight: 4 },
  { arbitrary: fc.constantFrom(...VEHICLE_TYPES).map((type) => JSON.stringify(type)), weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 12_000 }).map((n) => `"${'a'.repeat(n)}"`), weight: 1 },
);

/** Objects shaped like a request: the four fields (each maybe missing or odd), maybe extra keys. */
const requestLikeText = fc
  .record(
    {
      purchaseYear: fieldText,
      purchasePrice: fieldText,
      vehicleType: fieldText,
      currentMileage: fieldText,
      extra: fc.array(
        fc.tuple(
          fc.oneof(
            fc.string({ maxLength: 10 }),
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'currentMilage'),
          ),
          fieldText,
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  )
  .map(({ extra = [], ...fields }) => {
    const entries = [...Object.entries(fields), ...extra].map(
      ([k, v]) => `${JSON.stringify(k)}:${v}`,
    );
    return `{${entries.join(',')}}`;
  });

/** A valid request, so a good share of the answers are 200s. */
const validText = fc
  .record({
    purchaseYear: fc.integer({ min: 1900, max: new Date().getUTCFullYear() }),
    purchasePrice: fc.double({ min: 0.01, max: 10_000_000, noNaN: true }),
    vehicleType: fc.constantFrom(...VEHICLE_TYPES),
    currentMileage: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
  })
  .map((body) => JSON.stringify(body));

const deepText = fc
  .tuple(fc.integer({ min: 20, max: 4000 }), fc.constantFrom('array', 'object', 'field'))
  .map(([depth, shape]) => {
    if (shape === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    if (shape === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    return `{"purchaseYear":${'['.repeat(depth)}${']'.repeat(depth)},"purchasePrice":1,"vehicleType":"ev"}`;
  });

const jsonText = fc.oneof(
  { arbitrary: validText, weight: 4 },
  { arbitrary: requestLikeText, weight: 6 },
  {
    arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? ''),
    weight: 2,
  },
  { arbitrary: deepText, weight: 1 },
);

/** Body bytes: JSON texts, mangled (truncated, invalid UTF-8 spliced in), or random. */
const bodyBytes = fc.oneof(
  { arbitrary: jsonText.map((body) => Buffer.from(body)), weight: 8 },
  {
    arbitrary: fc
      .tuple(jsonText, fc.nat())
      .map(([body, cut]) => Buffer.from(body).subarray(0, cut % (body.length + 1))),
    weight: 2,
  },
  {
    arbitrary: fc
      .tuple(jsonText, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
      .map(([body, at, junk]) => {
        const bytes = Buffer.from(body);
        const cut = at % (bytes.length + 1);
        return Buffer.concat([
          bytes.subarray(0, cut),
          Buffer.from(junk.map((b) => b | 0x80)),
          bytes.subarray(cut),
        ]);
      }),
    weight: 2,
  },
  { arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
  { arbitrary: validText.map((body) => Buffer.from(`\ufeff${body}`, 'utf16le')), weight: 1 },
);

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json;charset=UTF-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=bogus',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      '',
    ),
    weight: 4,
  },
  { arbitrary: text(40), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const method = fc.oneof(
  { arbitrary: fc.constant('POST'), weight: 14 },
  {
    arbitrary: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'),
    weight: 4,
  },
  {
    arbitrary: fc.constantFrom('CONNECT', 'FOO', 'get', 'P0ST', 'PROPFIND', 'M-SEARCH'),
    weight: 1,
  },
);

const path = fc.oneof(
  { arbitrary: fc.constant('/api/depreciate'), weight: 14 },
  {
    arbitrary: fc.constantFrom(
      '/',
      '/api',
      '/api/',
      '/api/depreciate/',
      '/API/Depreciate',
      '/api/depreciate?x=1&y=%zz',
      '/api//depreciate',
      '/metrics',
      '/docs',
      '/docs-json',
      '/docs/swagger-ui.css',
      '/docs/../package.json',
      '/%2e%2e/%2e%2e/etc/passwd',
      '*',
      'http://127.0.0.1/api/depreciate',
      '/api/depreciate#frag',
    ),
    weight: 3,
  },
  { arbitrary: fc.webPath(), weight: 2 },
  { arbitrary: text(30).map((piece) => `/${piece}`), weight: 1 },
);

const framing = fc.oneof(
  { arbitrary: fc.constant('length' as const), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      'chunked' as const,
      'none' as const,
      'short' as const,
      'abort' as const,
    ),
    weight: 2,
  },
);

const encoding = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 12 },
  {
    arbitrary: fc.constantFrom('gzip', 'gzip-valid', 'deflate', 'br', 'identity', 'compress'),
    weight: 1,
  },
);

function chunked(body: Buffer, pieces: number): Buffer {
  const size = Math.max(1, Math.ceil(body.length / pieces));
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]);
}

/** Whole requests: method, path, headers, framing and body bytes, each sometimes broken. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method,
    path,
    contentType,
    body: bodyBytes,
    framing,
    encoding,
    pieces: fc.integer({ min: 1, max: 5 }),
    host: fc.oneof(
      { arbitrary: fc.constant(true), weight: 20 },
      { arbitrary: fc.constant(false), weight: 1 },
    ),
    requestId: fc.option(text(140), { freq: 4 }),
    origin: fc.option(fc.constantFrom('https://example.com', 'null', 'http://127.0.0.1:1'), {
      freq: 4,
    }),
    expect: fc.option(fc.constantFrom('100-continue', 'bogus'), { freq: 10 }),
  })
  .map((r) => {
    let body: Buffer = r.encoding === 'gzip-valid' ? gzipSync(r.body) : r.body;
    const headers: string[] = [];
    if (r.host) headers.push('Host: 127.0.0.1');
    headers.push('Connection: close');
    if (r.contentType !== undefined) headers.push(`Content-Type: ${r.contentType}`);
    if (r.encoding !== undefined)
      headers.push(`Content-Encoding: ${r.encoding.replace('-valid', '')}`);
    if (r.requestId !== null) headers.push(`X-Request-Id: ${r.requestId}`);
    if (r.origin !== null)
      headers.push(`Origin: ${r.origin}`, 'Access-Control-Request-Method: POST');
    if (r.expect !== null) headers.push(`Expect: ${r.expect}`);
    if (r.framing === 'chunked') {
      headers.push('Transfer-Encoding: chunked');
      body = chunked(body, r.pieces);
    } else if (r.framing === 'short') {
      headers.push(`Content-Length: ${Math.floor(body.length / 2)}`);
    } else if (r.framing === 'abort') {
      headers.push(`Content-Length: ${body.length + 10}`);
    } else if (r.framing === 'length') {
      headers.push(`Content-Length: ${body.length}`);
    }
    const head = Buffer.from(
      `${r.method} ${r.path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`,
      'latin1',
    );
    return { method: r.method, bytes: Buffer.concat([head, body]), abort: r.framing === 'abort' };
  });
