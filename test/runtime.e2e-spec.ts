import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { join } from 'node:path';
import { satisfies } from 'semver';
import { NODE_FLAGS } from '../src/testing/server-process';

/**
 * The pinned runtime: package.json depends on the registry's `node` package, so `npm ci` puts Node
 * 26 in node_modules/.bin and every npm script (start, test, bench) runs on it, whatever Node the
 * machine has. npm itself runs on the machine's Node and checks `engines` against that one, so its
 * warnings are silenced in .npmrc; the checks here make them against the runtime that runs the code.
 */
const ROOT = join(__dirname, '..');
const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;

interface Manifest {
  name?: string;
  scripts?: Record<string, string>;
  version?: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}
interface LockEntry {
  version?: string;
  optional?: boolean;
  hasInstallScript?: boolean;
}
const manifest = readJson<Manifest>('package.json');
const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');

/** Every package npm installed from the lock file (nested copies too), with its own manifest. */
function installedPackages(): Array<{ path: string; entry: LockEntry; manifest: Manifest }> {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.optional)
    .map(([path, entry]) => ({
      path,
      entry,
      manifest: readJson<Manifest>(join(path, 'package.json')),
    }));
}

describe('The pinned runtime', () => {
  const pinned = lock.packages['node_modules/node']?.version;

  it('is the one the lock file names, running these tests and anything they start', () => {
    expect(pinned).toMatch(/^26\.\d+\.\d+$/);
    expect(process.version).toBe(`v${pinned}`);
    // package.json depends on `node`, with a range that admits the version the lock file pins.
    expect(satisfies(pinned ?? '', manifest.dependencies?.node ?? 'none')).toBe(true);
    // The built server, the cluster script and the bench start process.execPath, never `node` on PATH.
    expect(readdirSync(join(ROOT, 'node_modules/.bin'))).toContain('node');
  });

  it('satisfies the engines of the project, .nvmrc and every installed package', () => {
    expect(satisfies(process.version, manifest.engines?.node ?? '')).toBe(true);
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe(
      String(process.versions.node.split('.')[0]),
    );
    const unsatisfied = installedPackages()
      .filter(({ manifest: m }) => m.engines?.node && !satisfies(process.version, m.engines.node))
      .map(({ path, manifest: m }) => `${path}@${m.version} wants node ${m.engines?.node}`);
    expect(unsatisfied).toEqual([]);
  });

  it('has every install script approved or denied in allowScripts, and approves only the runtime', () => {
    const withScripts = installedPackages()
      .filter(({ entry }) => entry.hasInstallScript)
      .map(({ manifest: m }) => m.name ?? '');
    const decided = manifest.allowScripts ?? {};
    expect(withScripts.filter((name) => !(name in decided))).toEqual([]);
    expect(Object.keys(decided).filter((name) => decided[name])).toEqual(['node']);
  });
});

describe('The start scripts', () => {
  it('start the built server with SIGUSR1 unable to open the inspector, as the tests start it', () => {
    const { start, 'start:prod': production } = manifest.scripts ?? {};
    expect([start, production]).toEqual([
      'node --disable-sigusr1 dist/main.js',
      'node --disable-sigusr1 dist/main.js',
    ]);
    expect(NODE_FLAGS).toEqual(['--disable-sigusr1']);
  });

  it("are the image's command too (the Dockerfile's CMD: the pinned Node, the same flags)", () => {
    const command = /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(JSON.parse(command?.[1] ?? '[]')).toEqual([
      '/usr/local/bin/node',
      ...NODE_FLAGS,
      'dist/main.js',
    ]);
  });
});

/** Every .js file below `dir`, as paths relative to the project. */
function javascriptFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => relative(ROOT, join(ROOT, dir, file)));
}

describe('The production build (npm run build, which npm test runs first)', () => {
  it('emits nothing that starts processes: the test and cluster tooling stays out of dist/', () => {
    const files = javascriptFiles('dist');
    expect(files).toContain('dist/main.js');
    // Each file comes from a source of src/ that is no spec and no test helper (src/testing/), and
    // so does each source of the bundle (dist/main.bundle.js), beside its dependencies.
    const map = join(ROOT, 'dist', 'main.bundle.js.map');
    const { sources } = JSON.parse(readFileSync(map, 'utf8')) as {
      sources: string[];
    };
    const bundled = sources
      .filter((source) => !source.includes('/node_modules/'))
      .map((source) => relative(ROOT, join(ROOT, 'dist', source)));
    expect(bundled).toContain('src/app.module.ts');
    // dist/main.js is scripts/main-loader.cjs, which runs the bundle: neither is compiled from src/.
    const compiled = files
      .filter((file) => file !== 'dist/main.js' && file !== 'dist/main.bundle.js')
      .map((file) => file.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'));
    const shipsNot = (source: string) =>
      source.endsWith('.spec.ts') ||
      source.startsWith('src/testing/') ||
      !existsSync(join(ROOT, source));
    expect([...compiled, ...bundled].filter(shipsNot)).toEqual([]);
    // The bundle holds its dependencies' code, which may (dotenv's command line does): the rest.
    const spawning = files.filter(
      (file) =>
        file !== 'dist/main.bundle.js' &&
        /require\("node:child_process"\)|require\("child_process"\)/.test(
          readFileSync(join(ROOT, file), 'utf8'),
        ),
    );
    expect(spawning).toEqual([]);
  });
});
