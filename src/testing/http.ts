import { Agent, IncomingHttpHeaders, request } from 'node:http';
import { once } from 'node:events';
import { type AddressInfo, connect, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { recordAnswer, VALID } from './bodies';

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
  /** A keep-alive agent (keepAliveAgent) whose sockets are reused; a new connection unless given. */
  agent?: Agent;
  /** An already open connection to send it on (a pool that opened its connections first). */
  socket?: Socket;
}

/**
 * One HTTP request with Node's http: on a new connection (so localAddress always applies), on a
 * keep-alive agent's, or on a given socket. Rejects with the error the client library raised.
 */
export function send(call: HttpCall): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: call.host ?? '127.0.0.1',
        port: call.port,
        method: call.method ?? 'GET',
        path: call.path ?? '/',
        headers: call.headers,
        localAddress: call.agent ? undefined : call.localAddress,
        // Node uses createConnection only without an agent (agent: false makes a new one).
        ...(call.socket ? { createConnection: () => call.socket } : { agent: call.agent ?? false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: parseJson(text),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

/** A keep-alive agent bound to `from`: every socket it opens is that client's. */
export const keepAliveAgent = (from: string, maxSockets = 4): Agent =>
  new Agent({ keepAlive: true, maxSockets, localAddress: from });

/**
 * What a client saw of one request: the answer, or the error its library raised instead (a reset,
 * a broken pipe: what a client cannot tell from a crash).
 */
export type Outcome = HttpAnswer | { error: string };

/** The error code a client library reports (`ECONNRESET`, `EPIPE`, `UND_ERR_SOCKET`, …). */
function codeOf(error: unknown): string {
  const { code, cause } = error as { code?: string; cause?: unknown };
  if (cause !== undefined) return codeOf(cause);
  return code ?? String(error);
}

/** The answer, or the error code of the client that failed to get one. */
export const outcomeOf = (answer: Promise<HttpAnswer>): Promise<Outcome> =>
  answer.catch((error: unknown) => ({ error: codeOf(error) }));

/** How many outcomes of each kind: `{ '200': 32, '503': 68 }`, `{ ECONNRESET: 3 }`. */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = 'error' in outcome ? outcome.error : String(outcome.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The parsed JSON of a body, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

/** What `depreciate` sends, for a test that sends it otherwise (a keep-alive agent, a socket). */
export const POST_JSON = {
  method: 'POST',
  path: '/api/depreciate',
  headers: { 'content-type': 'application/json' },
};

/**
 * POST /api/depreciate over a real socket, to an app or process listening on `port` (supertest's
 * in-process counterpart is `depreciateIn`, src/testing/test-app.ts). Its answer is recorded for
 * the OpenAPI check (src/testing/bodies.ts); `send` with POST_JSON records nothing.
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

/** Starts `server` listening on a free port of 127.0.0.1; resolves with the port once it listens. */
export async function listenOnLoopback(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A raw loopback client that has sent `head`, once `server` has handed its request to a handler. */
export async function sentRaw(server: Server, port: number, head: string): Promise<Socket> {
  const client = connect({ port, host: '127.0.0.1' });
  client.on('error', () => undefined);
  const arrived = once(server, 'request');
  client.write(head);
  await arrived;
  return client;
}
