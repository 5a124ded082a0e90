import {
  INVALID_INPUT_MESSAGE,
  PAYLOAD_TOO_LARGE_MESSAGE,
  rateLimitMessage,
  UNSUPPORTED_CONTENT_ENCODING_MESSAGE,
  UNSUPPORTED_MEDIA_TYPE_MESSAGE,
} from '../common/error-messages';
import { MAX_PROJECTION_YEARS } from '../depreciation/dto/calculate-depreciation.dto';
import { FuzzRequest } from './fuzz-requests';
import { Exchange, parseResponses, RawResponse } from './raw-http';

/** The contract's checks on one fuzz answer (docs/contract.md: statuses, error body, success shape). */
const STATUSES = new Set([200, 400, 404, 413, 415, 429]);
const SUCCESS_KEYS = ['data', 'meta', 'success'];
const DATA_KEYS = [
  'currentValue',
  'monthlyDepreciation',
  'totalDepreciation',
  'totalDepreciationPercent',
  'yearlyBreakdown',
];
const META_KEYS = ['calculatedAt', 'vehicleAge', 'vehicleType'];
const ENTRY_KEYS = ['age', 'depreciation', 'depreciationPercent', 'value', 'year'];

const keys = (value: unknown): string[] =>
  typeof value === 'object' && value !== null ? Object.keys(value).sort() : [];

/** The data's keys: the five of every answer, and `projection` (1 to 10 entries) when asked for. */
function dataShapeOk(data: unknown): boolean {
  const { projection } = (data ?? {}) as { projection?: unknown };
  if (projection === undefined) return keys(data).join() === DATA_KEYS.join();
  return (
    keys(data).join() === [...DATA_KEYS, 'projection'].sort().join() &&
    Array.isArray(projection) &&
    projection.length >= 1 &&
    projection.length <= MAX_PROJECTION_YEARS &&
    projection.every((entry) => keys(entry).join() === ENTRY_KEYS.join())
  );
}

function bodyProblem(
  request: FuzzRequest,
  response: RawResponse,
  limit: number,
): string | undefined {
  const { status, body } = response;
  if (status >= 400) {
    // A 415 names the header at fault: the type, or (a JSON body) the coding.
    const fixed: Partial<Record<number, string[]>> = {
      400: [INVALID_INPUT_MESSAGE],
      413: [PAYLOAD_TOO_LARGE_MESSAGE],
      415: [UNSUPPORTED_MEDIA_TYPE_MESSAGE, UNSUPPORTED_CONTENT_ENCODING_MESSAGE],
      429: [rateLimitMessage(limit)],
    };
    const parsed = JSON.parse(body.toString('utf8')) as { statusCode?: unknown; message?: unknown };
    const ok =
      keys(parsed).join() === 'message,statusCode' &&
      parsed.statusCode === status &&
      typeof parsed.message === 'string' &&
      (fixed[status] === undefined || fixed[status].includes(parsed.message));
    return ok ? undefined : `error body ${body.toString('utf8')}`;
  }
  if (status === 200 && request.method === 'POST') {
    const parsed = JSON.parse(body.toString('utf8')) as {
      success?: unknown;
      data?: unknown;
      meta?: unknown;
    };
    const ok =
      keys(parsed).join() === SUCCESS_KEYS.join() &&
      parsed.success === true &&
      dataShapeOk(parsed.data) &&
      keys(parsed.meta).join() === META_KEYS.join();
    return ok ? undefined : `success body ${body.toString('utf8').slice(0, 300)}`;
  }
  return undefined;
}

/** What is wrong with the answer to `request`, if anything. */
export function problemWith(
  request: FuzzRequest,
  answer: Exchange,
  limit: number,
): string | undefined {
  if (!answer.closed) return 'the server neither answered nor closed the connection';
  if (request.abort) return undefined;
  let responses: RawResponse[];
  try {
    responses = parseResponses(answer.received, request.method === 'HEAD');
  } catch (error) {
    return (error as Error).message;
  }
  // Node closes a CONNECT connection it has no tunnel for, without a word.
  if (responses.length === 0) return request.method === 'CONNECT' ? undefined : 'no answer';
  for (const [index, response] of responses.entries()) {
    const preflight = response.status === 204 && request.method === 'OPTIONS' && index === 0;
    if (!STATUSES.has(response.status) && !preflight) return `status ${response.status}`;
    if (request.method === 'HEAD' && index === 0) continue;
    try {
      const problem = bodyProblem(request, response, limit);
      if (problem) return problem;
    } catch {
      return `status ${response.status} with a body that is not JSON: ${response.body.toString('utf8').slice(0, 200)}`;
    }
  }
  return undefined;
}
