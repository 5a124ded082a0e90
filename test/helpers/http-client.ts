import { IncomingHttpHeaders, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Wall time from sending to the whole answer, in milliseconds. */
  ms: number;
}

export interface SendOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The client's own address: 127.0.0.N makes a distinct client on loopback. */
  from?: string;
}

/**
 * One HTTP request on a fresh connection (so `from` is the socket's address), answering the
 * parsed JSON body. Fails only if no HTTP answer comes (connection refused, 10 s timeout).
 */
export function send(url: string, options: SendOptions = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        agent: false,
        localAddress: options.from,
        timeout: 10_000,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text === '' ? undefined : (JSON.parse(text) as unknown),
            ms: performance.now() - started,
          }),
        );
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`No answer from ${url} in 10 s`)));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** A valid depreciation request (purchaseYear overridable: the new-year test needs it). */
export const validRequest = (purchaseYear = 2020) => ({
  purchaseYear,
  purchasePrice: 25_000,
  vehicleType: 'sedan',
});

/** POST /api/depreciate with a valid body from `from`. */
export const depreciate = (baseUrl: string, from: string, extra: Omit<SendOptions, 'from'> = {}) =>
  send(`${baseUrl}/api/depreciate`, { body: validRequest(), ...extra, from });

/** X-RateLimit-Remaining as a number. */
export const remaining = (answer: Answer): number =>
  Number(answer.headers['x-ratelimit-remaining']);
