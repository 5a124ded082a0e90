import { IncomingHttpHeaders, request } from 'node:http';

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

/** POST a JSON body to /api/depreciate. */
export const depreciate = (port: number, body: unknown, localAddress?: string) =>
  send({
    port,
    method: 'POST',
    path: '/api/depreciate',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    localAddress,
  });
