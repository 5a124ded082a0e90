import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The application's assembly: the only files that may import src/edge (README, "Architecture"). */
const ASSEMBLY = ['app.setup.ts', 'main.ts', 'metrics/metrics.server.ts'];
/** An import or re-export of a module under edge/, however far up the path goes. */
const EDGE_IMPORT = /\bfrom\s+'(?:\.\.?\/)+(?:[\w.-]+\/)*edge(?:\/[\w.-]+)?'/;
/** A Symbol made to be a slot on another object (Symbol('x'), Symbol.for('x')). */
const SYMBOL_SLOT = /\bSymbol(?:\.for)?\s*\(/;

/** Every TypeScript file under src/ that ships (no spec), by its path relative to src/. */
function sources(dir: string = __dirname): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')
      ? [relative(__dirname, path)]
      : [];
  });
}

const text = (file: string): string => readFileSync(join(__dirname, file), 'utf8');

/**
 * The structure of issue 29, checked where ESLint may not run: the edge is the outermost layer,
 * and what it knows of a connection is one object, not slots on Node's objects.
 */
describe('the architecture of src/', () => {
  const files = sources();

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

  it('finds what it looks for (the checks above are not vacuous)', () => {
    expect(files).toContain('edge/edge.ts');
    expect(EDGE_IMPORT.test("import { installEdge } from './edge/edge';")).toBe(true);
    expect(EDGE_IMPORT.test("import { answerError } from '../../edge/answers';")).toBe(true);
    expect(SYMBOL_SLOT.test("const KEY = Symbol('key');")).toBe(true);
  });
});
