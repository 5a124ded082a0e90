import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGE = join(import.meta.dirname, '..');
const COMMITTED = join(PACKAGE, 'src', 'generated');
const GENERATOR = join(PACKAGE, '../../node_modules/@hey-api/openapi-ts/bin/run.js');

/** Every file of a folder (the generator writes no subfolders), by name. */
const files = (folder: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(folder)
      .sort()
      .map((name) => [name, readFileSync(join(folder, name), 'utf8')]),
  );

/**
 * src/generated/ is what `npm run client` writes from the committed openapi.json today: a change of
 * the contract cannot land without its types, and so without showing up in review.
 */
describe('the generated types', () => {
  let fresh: string;

  beforeAll(() => {
    fresh = mkdtempSync(join(tmpdir(), 'client-generated-'));
    // The same config as `npm run generate`, written elsewhere (-o), on the Node running the tests.
    execFileSync(
      process.execPath,
      [GENERATOR, '--file', 'openapi-ts.config.mjs', '--output', fresh, '--silent'],
      { cwd: PACKAGE, stdio: 'pipe' },
    );
  });

  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  it('are what the generator writes from the committed openapi.json (else: npm run client)', () => {
    const written = files(fresh);
    expect(Object.keys(written)).toEqual(['index.ts', 'types.gen.ts']);
    expect(files(COMMITTED)).toEqual(written);
  });

  it('come from a generator pinned to an exact version', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies['@hey-api/openapi-ts']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
