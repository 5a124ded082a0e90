import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { HttpAnswer, type Outcome, outcomeOf, parseJson } from './http';

/**
 * The clients edge.e2e-spec.ts drives besides Node's http (src/testing/http.ts: `send`, with and
 * without a keep-alive agent): fetch, curl, and a pool of connections opened before any request.
 */

/** `count` connections from `from`, all open before any request is sent on them (`send`'s socket). */
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

/** POST /api/depreciate with the global `fetch` (undici), from 127.0.0.1. */
export function fetchRequest({ port, body }: { port: number; body: Buffer }): Promise<Outcome> {
  const answer = async (): Promise<HttpAnswer> => {
    const response = await fetch(`http://127.0.0.1:${port}/api/depreciate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    const headers = Object.fromEntries(response.headers) as HttpAnswer['headers'];
    return { status: response.status, headers, text, json: parseJson(text) };
  };
  return outcomeOf(answer());
}

/**
 * curl POSTing `body` (curl sends `Expect: 100-continue` for a body over 1 MiB; it reads it from a
 * file of its own, removed after), with `headers` (`Name: value`) besides its Content-Type. One
 * call of curl may make several requests at once (`--parallel`): one outcome each, with the
 * status and body (not the headers), or curl's exit code as the error.
 */
export async function curlRequests(
  port: number,
  { body, ...options }: { body: string | Buffer } & CurlOptions,
): Promise<Outcome[]> {
  const dir = mkdtempSync(join(tmpdir(), 'curl-body-'));
  try {
    const file = join(dir, 'body.json');
    writeFileSync(file, body);
    return await curl(port, file, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface CurlOptions {
  count?: number;
  from?: string;
  parallel?: boolean;
  headers?: string[];
}

function curl(
  port: number,
  file: string,
  { count = 1, from, parallel = false, headers = [] }: CurlOptions,
): Promise<Outcome[]> {
  const url = `http://127.0.0.1:${port}/api/depreciate`;
  // Per transfer: its body, type, address and one line with its curl exit code and status.
  const one = [
    ...(from ? ['--interface', from] : []),
    ...['-w', '\n%{exitcode} %{http_code}\n', '-H', 'Content-Type: application/json'],
    ...headers.flatMap((header) => ['-H', header]),
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
        const [, text, exit, status] = match;
        outcomes.push(
          exit === '0'
            ? { status: Number(status), headers: {}, text, json: parseJson(text) }
            : { error: `curl exit ${exit}` },
        );
      }
      resolve(outcomes);
    });
  });
}
