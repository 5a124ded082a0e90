import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { send } from '../src/testing/http';
import { ServerProcess, startServer } from '../src/testing/server-process';

const COMMITTED = join(__dirname, '..', 'openapi.json');

/**
 * The committed OpenAPI document (openapi.json, written by `npm run openapi`) is the one a server
 * with the default configuration serves: a change of the contract cannot land without showing up
 * in that file, and so in review.
 */
describe('openapi.json', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer();
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it('is the document the built server serves with its defaults (else: npm run openapi)', async () => {
    const served = (await send({ port: server.port, path: '/docs-json' })).json;
    const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as unknown;
    expect(served).toEqual(committed);
  });
});
