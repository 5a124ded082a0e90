/**
 * A client of the vehicle depreciation API (`POST /api/depreciate`), for Node 24 and browsers.
 *
 * The request and answer types are generated from the committed OpenAPI document into
 * `./generated/` (`npm run client` at the repository's root); this file is the hand-written layer
 * over them. It imports them as types only, so the build of this file is one self-contained ES
 * module with no runtime dependency but `fetch` (the calculator page serves it as it is).
 */
import type {
  DepreciationControllerCalculateErrors,
  DepreciationRequest,
  DepreciationResponse,
  ErrorResponse,
} from './generated/types.gen.js';

export type {
  DepreciationData,
  DepreciationMeta,
  DepreciationRequest,
  DepreciationResponse,
  ErrorResponse,
  VehicleType,
  YearlyEntry,
} from './generated/types.gen.js';

/** The path of the operation, under the base URL. */
export const DEPRECIATE_PATH = '/api/depreciate';

/**
 * Every error status docs/contract.md lists for the operation, each answered with the contract's
 * error body `{statusCode, message}`: 400 invalid input, 408 a request not sent in time, 413 a body
 * over 8 KiB, 415 not JSON (or a content coding the server does not decode), 429 the daily limit
 * used up, 431 headers over 16 KiB, 500 an unexpected failure, 503 too many connections from this
 * client (with `Retry-After: 1`), 505 an HTTP version other than 1.0 or 1.1.
 */
export const ERROR_STATUSES = [
  400, 408, 413, 415, 429, 431, 500, 503, 505,
] as const satisfies ReadonlyArray<keyof DepreciationControllerCalculateErrors>;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];
/** The list above is the document's, whole: a status documented but missing here fails to compile. */
const EVERY_DOCUMENTED_ERROR: Exclude<
  keyof DepreciationControllerCalculateErrors,
  ErrorStatus
> extends never
  ? true
  : never = true;
void EVERY_DOCUMENTED_ERROR;

/** The daily limit as a counted answer states it (docs/contract.md, "Rate-limit headers"). */
export interface RateLimit {
  /** `X-RateLimit-Limit` (else `RateLimit-Policy`'s `q`): requests per UTC day. */
  limit: number;
  /** `X-RateLimit-Remaining` (else `RateLimit`'s `r`): what is left of them today. */
  remaining: number;
  /** `X-RateLimit-Reset` (else `RateLimit`'s `t`): seconds until the budget is whole again. */
  resetSeconds: number;
}

/** What every answer the server gave carries, whatever its status. */
export interface Answered {
  /** The answer's headers as received (`X-Request-Id` among them). */
  headers: Headers;
  /**
   * The rate-limit headers as numbers; null on an answer that was not counted (a body over 8 KiB,
   * malformed JSON, a content coding refused, a refusal at the connection: 408, 413, 431, 503,
   * 505) or that lacks them.
   */
  rateLimit: RateLimit | null;
  /**
   * `Retry-After` in seconds (an HTTP date is turned into seconds from now); null without it. A
   * `429` carries the seconds until the daily limit resets, a `503` one second.
   */
  retryAfterSeconds: number | null;
}

/** `200`: the valuation. */
export interface DepreciateSuccess extends Answered {
  kind: 'ok';
  status: 200;
  body: DepreciationResponse;
}

/** A documented error status with the contract's error body; narrow it further by `status`. */
export type DepreciateError = {
  [S in ErrorStatus]: Answered & { kind: 'error'; status: S; body: ErrorResponse };
}[ErrorStatus];

/**
 * An answer the contract does not describe: a status it does not list (a proxy's 502, a 404 from
 * a wrong base URL), or a listed status whose body is not the documented one (`reason: 'body'`,
 * e.g. an HTML page from a load balancer). `body` is the parsed JSON, or undefined if it is not
 * JSON; `text` is the body as received.
 */
export interface DepreciateUnexpected extends Answered {
  kind: 'unexpected';
  reason: 'status' | 'body';
  status: number;
  body: unknown;
  text: string;
}

/**
 * No answer: the server could not be reached, the connection failed before the whole answer was
 * read, or the URL was not valid. `status` 0 like a browser's failed request; `error` is what
 * `fetch` raised (in Node, its `cause` holds the code, e.g. `ECONNREFUSED`).
 */
export interface DepreciateNetworkFailure {
  kind: 'network';
  status: 0;
  error: unknown;
}

/** No answer because the caller's `signal` aborted the request; `error` is the signal's reason. */
export interface DepreciateAborted {
  kind: 'aborted';
  status: 0;
  error: unknown;
}

/**
 * Nothing was sent: an argument cannot be used (plain JavaScript callers can pass anything).
 * `error` is a TypeError naming it: `options` that is not an object, a `baseUrl` that is not a
 * string, a `fetch` that is not a function, a `signal` that is not an AbortSignal, `headers` that
 * are not headers, a request that JSON cannot write (a BigInt, a cycle).
 */
export interface DepreciateInvalidArgument {
  kind: 'invalid-argument';
  status: 0;
  error: unknown;
}

/**
 * What `depreciate` resolves to: switch on `kind`, then on `status` for the error statuses.
 * `status` is the HTTP status for every answer and 0 when there was none.
 */
export type DepreciateResult =
  | DepreciateSuccess
  | DepreciateError
  | DepreciateUnexpected
  | DepreciateNetworkFailure
  | DepreciateAborted
  | DepreciateInvalidArgument;

/** The part of `fetch` the client uses: the global one, or any implementation of it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface DepreciateOptions {
  /**
   * Where the API is, e.g. `https://api.example.com` or `http://127.0.0.1:3000/prefix`; the path
   * `/api/depreciate` is appended. Default `''`: the page's own origin in a browser (Node needs
   * an absolute URL).
   */
  baseUrl?: string;
  /** The fetch to call; the global `fetch` by default (Node 18+, every current browser). */
  fetch?: FetchLike;
  /** Aborts the request: the result is then `{ kind: 'aborted' }`. */
  signal?: AbortSignal;
  /**
   * Headers to add. They replace the client's own (`Content-Type: application/json`,
   * `Accept: application/json`) of the same name. In a browser on another origin, a header CORS
   * does not allow (the service allows `Content-Type` and `X-Request-Id`) fails the preflight.
   */
  headers?: ConstructorParameters<typeof Headers>[0];
}

/**
 * `POST /api/depreciate` with `request` as its JSON body. Never rejects: every outcome, a refusal,
 * a network failure, an abort and an argument it cannot use included (a plain JavaScript caller's
 * `null` options: `invalid-argument`), is a value of `DepreciateResult`. `projectionYears` (1 to
 * 10) asks for `body.data.projection`, the values of the years after the current one.
 */
export async function depreciate(
  request: DepreciationRequest,
  options: DepreciateOptions = {},
): Promise<DepreciateResult> {
  let call: Call;
  try {
    call = callOf(request, options);
  } catch (error) {
    return { kind: 'invalid-argument', status: 0, error };
  }
  const { url, init, send } = call;
  let response: Response;
  let text: string;
  try {
    response = await send(url, init);
    text = await response.text();
  } catch (error) {
    const { signal } = init;
    return signal?.aborted
      ? { kind: 'aborted', status: 0, error: signal.reason ?? error }
      : { kind: 'network', status: 0, error };
  }
  return classify(response.status, response.headers, text);
}

/** What `depreciate` sends, and with which fetch. */
interface Call {
  url: string;
  init: RequestInit;
  send: FetchLike;
}

/** The call `request` and `options` make; throws a TypeError naming an argument it cannot use. */
function callOf(request: unknown, options: unknown): Call {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, not ${typeName(options)}`);
  }
  const { baseUrl = '', fetch: given, signal, headers: extra } = options as DepreciateOptions;
  if (typeof baseUrl !== 'string') {
    throw new TypeError(`options.baseUrl must be a string, not ${typeName(baseUrl)}`);
  }
  if (given !== undefined && typeof given !== 'function') {
    throw new TypeError(`options.fetch must be a function, not ${typeName(given)}`);
  }
  if (signal != null && !isSignal(signal)) {
    throw new TypeError(`options.signal must be an AbortSignal, not ${typeName(signal)}`);
  }
  const body = JSON.stringify(request) as string | undefined;
  if (body === undefined)
    throw new TypeError(`request cannot be written as JSON: ${typeName(request)}`);
  const headers = new Headers({ 'Content-Type': 'application/json', Accept: 'application/json' });
  new Headers(extra).forEach((value, name) => headers.set(name, value));
  return {
    url: `${baseUrl.replace(/\/+$/, '')}${DEPRECIATE_PATH}`,
    init: { method: 'POST', headers, body, signal },
    send: given ?? ((url, init) => fetch(url, init)),
  };
}

const typeName = (value: unknown): string => (value === null ? 'null' : typeof value);

/** By its shape, not instanceof: a polyfill's or another realm's signal is one too. */
const isSignal = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AbortSignal).aborted === 'boolean' &&
  typeof (value as AbortSignal).addEventListener === 'function';

/** The result for an answer: its status, headers and body text. */
function classify(status: number, headers: Headers, text: string): DepreciateResult {
  const body = parseJson(text);
  const answered: Answered = {
    headers,
    rateLimit: parseRateLimit(headers),
    retryAfterSeconds: parseRetryAfter(headers.get('Retry-After')),
  };
  if (status === 200 && isSuccessBody(body)) return { ...answered, kind: 'ok', status, body };
  if (isErrorStatus(status) && isErrorBody(body, status)) {
    return { ...answered, kind: 'error', status, body };
  }
  const documented = status === 200 || isErrorStatus(status);
  return {
    ...answered,
    kind: 'unexpected',
    reason: documented ? 'body' : 'status',
    status,
    body,
    text,
  };
}

const isErrorStatus = (status: number): status is ErrorStatus =>
  (ERROR_STATUSES as readonly number[]).includes(status);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The success body's frame (the figures inside are the server's to get right). */
const isSuccessBody = (body: unknown): body is DepreciationResponse =>
  isObject(body) &&
  body.success === true &&
  isObject(body.data) &&
  Array.isArray(body.data.yearlyBreakdown) &&
  isObject(body.meta);

/** The contract's error body, whose `statusCode` repeats the status. */
const isErrorBody = (body: unknown, status: number): body is ErrorResponse =>
  isObject(body) && body.statusCode === status && typeof body.message === 'string';

/** A header that is a whole number of seconds or requests (`52200`), else null. */
function wholeNumber(value: string | null): number | null {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : null;
}

/** One parameter of a structured-field header such as `"daily";r=99;t=52200`, else null. */
function parameter(value: string | null, key: string): number | null {
  const match = value === null ? null : new RegExp(`;\\s*${key}=(\\d+)(?![\\w.])`).exec(value);
  return match ? wholeNumber(match[1]) : null;
}

/**
 * The daily limit from an answer's headers: the `X-RateLimit-*` trio, each falling back to the
 * IETF draft's `RateLimit-Policy` (`q`) and `RateLimit` (`r`, `t`). Null unless all three are known.
 */
export function parseRateLimit(headers: Headers): RateLimit | null {
  const limit =
    wholeNumber(headers.get('X-RateLimit-Limit')) ??
    parameter(headers.get('RateLimit-Policy'), 'q');
  const remaining =
    wholeNumber(headers.get('X-RateLimit-Remaining')) ?? parameter(headers.get('RateLimit'), 'r');
  const resetSeconds =
    wholeNumber(headers.get('X-RateLimit-Reset')) ?? parameter(headers.get('RateLimit'), 't');
  if (limit === null || remaining === null || resetSeconds === null) return null;
  return { limit, remaining, resetSeconds };
}

/**
 * `Retry-After` in seconds: delay-seconds as they are (the service sends those), an HTTP date as
 * the whole seconds from `now` until then (0 if past); null when absent or neither.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  const seconds = wholeNumber(value);
  if (seconds !== null || value === null || !/GMT\s*$/.test(value)) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}
