/** One answer of the API's operation as a test received it. */
export interface RecordedAnswer {
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
