import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * What a client saw of one request: the answer, or the error its library raised instead (a reset,
 * a broken pipe: what a client cannot tell from a crash).
 */
export type Outcome =
  | { status: number; body: unknown; headers: Record<string, string | string[] | undefined> }
  | { error: string };

export interface ClientCall {
  port: number;
  path?: string;
  method?: string;
  body?: Buffer;
  headers?: Record<string, string>;
  /** The client's own address (any 127.0.0.N on loopback). */
  from?: string;
  /** A keep-alive agent whose sockets are reused; `agent: false` (a new connection) unless given. */
  agent?: Agent;
  /** An already open connection to send it on (a pool that opened its connections first). */
  socket?: Socket;
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** The error code a client library reports (`ECONNRESET`, `EPIPE`, `UND_ERR_SOCKET`, …). */
function codeOf(error: unknown): string {
  const { code, cause } = error as { code?: string; cause?: unknown };
  if (cause !== undefined) return codeOf(cause);
  return code ?? String(error);
}

/** Node's `http.request`: the first of a whole answer or an error wins. */
export function nodeRequest(call: ClientCall): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: call.port,
        method: call.method ?? 'POST',
        path: call.path ?? '/api/depreciate',
        headers: { 'content-type': 'application/json', ...call.headers },
        localAddress: call.agent ? undefined : call.from,
        // Node uses createConnection only without an agent (agent: false makes a new one).
        ...(call.socket ? { createConnection: () => call.socket } : { agent: call.agent ?? false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: parse(Buffer.concat(chunks).toString()),
          }),
        );
        res.on('error', (error) => resolve({ error: codeOf(error) }));
      },
    );
    req.on('error', (error) => resolve({ error: codeOf(error) }));
    req.end(call.body);
  });
}

/** `count` connections from `from`, all open before any request is sent on them. */
export function openConnections(port: number, from: string, count: number): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ port, host: '127.0.0.1', localAddress: from });
          socket.once('connect', () => resolve(socket)).once('error', reject);
        }),
    ),
  );
}

/** A keep-alive agent bound to `from`: every socket it opens is that client's. */
export const keepAliveAgent = (from: string, maxSockets = 4): Agent =>
  new Agent({ keepAlive: true, maxSockets, localAddress: from });

/** The global `fetch` (undici), from 127.0.0.1. */
export async function fetchRequest(call: Omit<ClientCall, 'from' | 'agent'>): Promise<Outcome> {
  try {
    const response = await fetch(`http://127.0.0.1:${call.port}${call.path ?? '/api/depreciate'}`, {
      method: call.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: call.body,
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: parse(await response.text()),
    };
  } catch (error) {
    return { error: codeOf(error) };
  }
}

/**
 * curl with the body in `file` (curl sends `Expect: 100-continue` for a body over 1 MiB). One
 * call of curl may make several requests at once (`--parallel`): one outcome each.
 */
export function curlRequests(
  port: number,
  {
    file,
    count = 1,
    from,
    parallel = false,
  }: { file: string; count?: number; from?: string; parallel?: boolean },
): Promise<Outcome[]> {
  const url = `http://127.0.0.1:${port}/api/depreciate`;
  // Per transfer: its body, type, address and one line with its curl exit code and status.
  const one = [
    ...(from ? ['--interface', from] : []),
    ...['-w', '\n%{exitcode} %{http_code}\n', '-H', 'Content-Type: application/json'],
    ...['--data-binary', `@${file}`, url],
  ];
  const args = [
    '-s',
    ...(parallel ? ['--parallel', '--parallel-max', String(count), '--parallel-immediate'] : []),
    ...Array.from({ length: count }, (_, i) => [...(i > 0 ? ['--next'] : []), ...one]).flat(),
  ];
  return new Promise((resolve) => {
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('close', () => {
      const outcomes: Outcome[] = [];
      const pattern = /(.*)\n(\d+) (\d{3})\n/g;
      for (let match = pattern.exec(out); match; match = pattern.exec(out)) {
        const [, body, exit, status] = match;
        outcomes.push(
          exit === '0'
            ? { status: Number(status), headers: {}, body: parse(body) }
            : { error: `curl exit ${exit}` },
        );
      }
      resolve(outcomes);
    });
  });
}

/** How many outcomes of each kind: `{ '200': 32, '503': 68 }`, `{ ECONNRESET: 3 }`. */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = 'error' in outcome ? outcome.error : String(outcome.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
