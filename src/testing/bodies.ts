import { DepreciationService } from '../depreciation/depreciation.service';
import type { CalculateDepreciationDto as DepreciationInput } from '../depreciation/dto/calculate-depreciation.dto';
import type { DepreciationResponseDto as DepreciationResult } from '../depreciation/dto/depreciation-response.dto';
import { README_EXAMPLE_REQUEST } from './readme-example';
import { SettableClock } from './settable-clock';

/** The request and answer bodies the tests share (docs/contract.md). */

/** A valid request: the README's example without its mileage. */
const { currentMileage: _mileage, ...withoutMileage } = README_EXAMPLE_REQUEST;
export const VALID = withoutMileage;

/** Every time in an answer or a log line: an ISO 8601 UTC instant to the millisecond. */
export const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The error table's bodies. */
export const INVALID = { statusCode: 400, message: 'Invalid input parameters' };
export const TOO_LARGE = { statusCode: 413, message: 'Request body too large' };
export const UNSUPPORTED_TYPE = {
  statusCode: 415,
  message: 'Content-Type must be application/json',
};
export const INTERNAL_ERROR = { statusCode: 500, message: 'Internal server error' };
/** The 429 at a daily limit of `limit` (100, the default, unless the test configures another). */
export const limited = (limit = 100) => ({
  statusCode: 429,
  message: `Rate limit exceeded. Maximum ${limit} requests per 24 hours.`,
});

/**
 * The whole success body for `request` valued at `calculatedAt`, as DepreciationService computes it:
 * plumbing only, for a test on the system clock (whose year it does not set) and for the one case
 * of depreciation.e2e-spec.ts that checks the model's answer is served unchanged. The figures are
 * pinned by hand elsewhere (src/testing/depreciation-figures.ts, src/testing/readme-example.ts).
 */
export const answerAt = (request: object, calculatedAt: string): DepreciationResult =>
  new DepreciationService(new SettableClock(calculatedAt)).calculate(request as DepreciationInput);

/** One answer of the API's operation as a test received it. */
interface RecordedAnswer {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/**
 * Every answer of POST /api/depreciate that the POST helpers received in this test file. After the
 * file's tests, test/setup-openapi.ts checks each one against the served OpenAPI document.
 */
export const recordedAnswers: RecordedAnswer[] = [];

export function recordAnswer(answer: RecordedAnswer): void {
  recordedAnswers.push(answer);
}
