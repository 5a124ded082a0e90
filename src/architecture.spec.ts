import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The application's assembly: the only files that may import src/edge (README, "Architecture"). */
const ASSEMBLY = ['app.setup.ts', 'main.ts', 'metrics/metrics.server.ts'];
/** An import or re-export of a module under edge/, however far up the path goes. */
const EDGE_IMPORT = /\bfrom\s+'(?:\.\.?\/)+(?:[\w.-]+\/)*edge(?:\/[\w.-]+)?'/;
/** A Symbol made to be a slot on another object (Symbol('x'), Symbol.for('x')). */
const SYMBOL_SLOT = /\bSymbol(?:\.for)?\s*\(/;
/** An import of src/testing/ (the tests' shared helpers), from anywhere in src/. */
const TESTING_IMPORT =
  /\b(?:from|import|require)\s*\(?\s*'(?:\.\.?\/)+(?:[\w.-]+\/)*testing\/[\w.-]+'/;
/** An import, re-export or require of a module under the repository's test/: its path below test/. */
const TEST_IMPORT = /\b(?:from|import|require)\s*\(?\s*'(?:\.\.\/)+test\/([\w./-]+)'/g;

/** Every TypeScript file under src/, by its path relative to src/. */
function typescriptFiles(dir: string = __dirname): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith('.ts') ? [relative(__dirname, path)] : [];
  });
}

const text = (file: string): string => readFileSync(join(__dirname, file), 'utf8');
/** What `source` imports from test/, each by its path below test/. */
const testImports = (source: string): string[] =>
  [...source.matchAll(TEST_IMPORT)].map((match) => match[1]);

/**
 * The structure of issues 29 and 31, checked where ESLint may not run: the edge is the outermost
 * layer, what it knows of a connection is one object, not slots on Node's objects, nothing in src/
 * depends on test/, and only the specs use the tests' shared helpers (src/testing/).
 */
describe('the architecture of src/', () => {
  const all = typescriptFiles();
  /** The files that ship: no spec, and not the tests' helpers. */
  const files = all.filter((file) => !file.endsWith('.spec.ts') && !file.startsWith('testing/'));
  const specs = all.filter((file) => file.endsWith('.spec.ts'));

  it('has only the assembly import src/edge', () => {
    const importers = files.filter(
      (file) => !file.startsWith(`edge/`) && EDGE_IMPORT.test(text(file)),
    );
    expect(importers.filter((file) => !ASSEMBLY.includes(file))).toEqual([]);
    expect(importers.length).toBeLessThanOrEqual(ASSEMBLY.length);
  });

  it('sets no Symbol slot on any object', () => {
    expect(files.filter((file) => SYMBOL_SLOT.test(text(file)))).toEqual([]);
  });

  it('ships nothing that imports the tests', () => {
    expect(files.filter((file) => testImports(text(file)).length > 0)).toEqual([]);
  });

  it('has no spec import test/: their shared helpers are src/testing/', () => {
    expect(specs.filter((spec) => testImports(text(spec)).length > 0)).toEqual([]);
  });

  it('ships nothing that imports src/testing/', () => {
    expect(files.filter((file) => TESTING_IMPORT.test(text(file)))).toEqual([]);
  });

  it('finds what it looks for (the checks above are not vacuous)', () => {
    expect(files).toContain('edge/edge.ts');
    expect(specs.filter((spec) => TESTING_IMPORT.test(text(spec))).length).toBeGreaterThan(0);
    expect(TESTING_IMPORT.test("import { x } from '../testing/settable-clock';")).toBe(true);
    expect(TESTING_IMPORT.test("import { x } from './testing/valid-inputs';")).toBe(true);
    // Written so that this file's own text imports nothing from the tests' folder.
    const tests = 'test';
    const imports = `import '../${tests}/setup-env';\nexport * from '../../${tests}/x';`;
    expect(testImports(imports)).toEqual(['setup-env', 'x']);
    expect(testImports(`require('../../${tests}/helpers/../setup-env');`)).toEqual([
      'helpers/../setup-env',
    ]);
    expect(EDGE_IMPORT.test("import { installEdge } from './edge/edge';")).toBe(true);
    expect(EDGE_IMPORT.test("import { closeIfBodyStillArriving } from '../../edge/answers';")).toBe(
      true,
    );
    expect(SYMBOL_SLOT.test("const KEY = Symbol('key');")).toBe(true);
  });
});
