import { recordedAnswers } from '../src/testing/bodies';
import { expectDocumentedAnswer } from '../src/testing/openapi';

// Every answer of the operation an e2e test received must be what the OpenAPI document promises:
// the schemas clients generate their types from. Checked once per file, after its tests.
afterAll(async () => {
  for (const { method, path, status, body } of recordedAnswers.splice(0)) {
    await expectDocumentedAnswer(method, path, status, body);
  }
}, 30_000);
