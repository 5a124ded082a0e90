import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from './app.factory';
import { errorText } from './common/error-text';
import { buildOpenApiDocument } from './swagger';

/** The committed contract (docs/contract.md, "Versioning"). */
const OPENAPI_FILE = join(__dirname, '..', 'openapi.json');

/**
 * `npm run openapi`. The environment applies (the document names RATE_LIMIT_PER_DAY); a test holds
 * the committed file to the defaults, so every contract change shows up in review.
 */
async function writeOpenApi(): Promise<void> {
  const app = await createApp();
  const document = buildOpenApiDocument(app);
  writeFileSync(OPENAPI_FILE, `${JSON.stringify(document, null, 2)}\n`);
  await app.close();
}

writeOpenApi().catch((error: unknown) => {
  console.error(`Failed to write openapi.json: ${errorText(error, 'stack')}`);
  process.exit(1);
});
