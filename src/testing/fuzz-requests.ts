import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { bodyBytes, text } from './fuzz-bodies';

/** One generated request, as bytes, with what the checks need to know about it. */
export interface FuzzRequest {
  method: string;
  bytes: Buffer;
  /** The client hangs up mid-body: no answer is expected. */
  abort: boolean;
}

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
