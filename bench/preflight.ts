import { isDeepStrictEqual } from 'node:util';
import { dist } from './project';

const { DepreciationService } = dist.service();
const { SystemClock } = dist.clock();
const service = new DepreciationService(new SystemClock());
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What a correct target answers to `body` with `status`: the whole body. */
function expectedBody(body: object, status: number, rateLimit: number, answer: unknown): unknown {
  if (status === 429) {
    return { statusCode: 429, message: dist.messages().rateLimitMessage(rateLimit) };
  }
  const wanted = service.calculate(body as Parameters<typeof service.calculate>[0]);
  // calculatedAt is the moment of the call: any ISO 8601 UTC timestamp with milliseconds.
  const calculatedAt = (answer as { meta?: { calculatedAt?: unknown } }).meta?.calculatedAt;
  if (typeof calculatedAt === 'string' && ISO_UTC.test(calculatedAt)) {
    wanted.meta.calculatedAt = calculatedAt;
  }
  return wanted;
}

/**
 * Sends one request and checks the whole answer: the status, a JSON Content-Type, and the body
 * DepreciationService computes (or the contract's 429 body). Undefined when right, else why not.
 */
export async function checkAnswer(
  url: string,
  body: object,
  status: number,
  rateLimit: number,
): Promise<string | undefined> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== status) return `answered ${response.status}: ${text.slice(0, 160)}`;
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) return `answered Content-Type "${type}"`;
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return `answered a body that is not JSON: ${text.slice(0, 160)}`;
  }
  if (!isDeepStrictEqual(answer, expectedBody(body, status, rateLimit, answer))) {
    return `answered a body that differs from the contract's: ${text.slice(0, 160)}`;
  }
  return undefined;
}
