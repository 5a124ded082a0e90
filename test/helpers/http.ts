import { IncomingHttpHeaders, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { recordAnswer } from './answers';
import { VALID } from './bodies';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export interface HttpCall {
  port: number;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The client's own address, to act as a distinct client: any 127.0.0.N works on loopback. */
  localAddress?: string;
  host?: string;
}

/** One HTTP request on a fresh connection (no keep-alive pool, so localAddress always applies). */
export function send(call: HttpCall): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: call.host ?? '127.0.0.1',
        port: call.port,
        method: call.method ?? 'GET',
        path: call.path ?? '/',
        headers: call.headers,
        localAddress: call.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

/** A request body as sent: an object as JSON, a string or Buffer as it is. */
export const encodeBody = (body: unknown): string | Buffer =>
  typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);

export interface DepreciateOptions {
  /** The body (see encodeBody); VALID unless given. */
  body?: unknown;
  /** The Content-Type, application/json unless given; null sends none. */
  type?: string | null;
  /** More headers (forged X-Forwarded-For and the like). */
  headers?: Record<string, string>;
  /** The client's own address (any 127.0.0.N on loopback): one client each. */
  from?: string;
  /** The server's address, 127.0.0.1 unless given. */
  host?: string;
}

export interface TimedAnswer extends HttpAnswer {
  /** Wall time from sending to the whole answer, in milliseconds. */
  ms: number;
}

/**
 * POST /api/depreciate over a real socket, to an app or process listening on `port` (supertest's
 * in-process counterpart is `depreciateIn`, test/helpers/test-app.ts).
 */
export async function depreciate(
  port: number,
  { body = VALID, type = 'application/json', headers, from, host }: DepreciateOptions = {},
): Promise<TimedAnswer> {
  const started = performance.now();
  const answer = await send({
    port,
    host,
    method: 'POST',
    path: '/api/depreciate',
    headers: { ...(type === null ? {} : { 'content-type': type }), ...headers },
    body: encodeBody(body),
    localAddress: from,
  });
  recordAnswer({
    method: 'POST',
    path: '/api/depreciate',
    status: answer.status,
    body: answer.json,
  });
  return { ...answer, ms: performance.now() - started };
}
