import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { send } from '../src/testing/http';
import { freePort, serverNodeFlags, sleep } from '../src/testing/processes';
import { MAIN_JS, README_BODY, ROOT, ROUTE, runMain, startServer } from './common';

/**
 * The code one warm request runs: the project's own built files (dist/, and the workspace client's
 * clients/typescript/dist/) with a function that ran while the built service answered one
 * `POST /api/depreciate` of the README's body after three warm ones (V8's precise coverage), and
 * their sources' lines. Prints a line per source file, then `N files, L lines`; with
 * `--max-files N` and/or `--max-lines L`, PASS or FAIL against them just before that last line.
 * The server logs at `--log-level`: info, the default of `npm start`, unless given.
 * Exit code 1: it could not measure; 2: measured over the goal. `npm run bench:request-path`.
 */
const WARM_UPS = 3;
/** Pauses for deferred work: the warm-ups' before the reset, the measured request's before the take. */
const SETTLE_BEFORE_MS = 300;
const SETTLE_AFTER_MS = 200;

/**
 * Preloaded into the server (`node -r`), written to a temp dir: starts V8's precise coverage and
 * serves REQUEST_PATH_PORT on loopback (unref'd: it never keeps the server up). `/reset` takes the
 * coverage so far and drops it; `/take` takes it and answers `{ "dist/x.js": functions that ran }`
 * for the scripts under REQUEST_PATH_ROOT's dist/ and clients/<name>/dist/ (a workspace package
 * loads from its real path there, not from node_modules/). In the bundle (dist/main.bundle.js, by
 * scripts/bundle.cjs) each function that ran is counted in its own source, through the bundle's
 * source map, as the dist/ file that source compiles to; its dependencies' functions are not.
 */
const PRELOAD = `'use strict';
const { Session } = require('node:inspector');
const { createServer } = require('node:http');
const { fileURLToPath } = require('node:url');
const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
const started = post('Profiler.enable').then(() =>
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: false }),
);
const { readFileSync } = require('node:fs');
const { SourceMap } = require('node:module');
const { join, relative, resolve } = require('node:path');
const root = process.env.REQUEST_PATH_ROOT;
const own = /^(?:clients\\/[^/]+\\/)?dist\\/.+\\.js$/;
const BUNDLE = 'dist/main.bundle.js';
let bundle;
/** The dist/ file that the source of an offset of the bundle compiles to, if it is the project's. */
function builtAt(offset) {
  if (bundle === undefined) {
    const text = readFileSync(join(root, BUNDLE), 'utf8');
    const starts = [0];
    for (let at = text.indexOf('\\n'); at >= 0; at = text.indexOf('\\n', at + 1)) starts.push(at + 1);
    const map = new SourceMap(JSON.parse(readFileSync(join(root, BUNDLE + '.map'), 'utf8')));
    bundle = { starts, map };
  }
  let line = 0;
  for (let step = 1 << 20; step > 0; step >>= 1)
    if (line + step < bundle.starts.length && bundle.starts[line + step] <= offset) line += step;
  const source = bundle.map.findEntry(line, offset - bundle.starts[line]).originalSource;
  if (source === undefined || source.includes('/node_modules/')) return undefined;
  const path = relative(root, source.startsWith('file:') ? fileURLToPath(source) : resolve(root, 'dist', source));
  return path.replace(/^src\\/(.+)\\.ts$/, 'dist/$1.js');
}
function ranIn(result) {
  const files = {};
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const path = relative(root, fileURLToPath(script.url));
    if (!own.test(path)) continue;
    const ran = script.functions.filter((f) => f.ranges.some((r) => r.count > 0));
    for (const f of ran) {
      const built = path === BUNDLE ? builtAt(f.ranges[0].startOffset) : path;
      if (built !== undefined) files[built] = (files[built] ?? 0) + 1;
    }
  }
  return files;
}
const control = createServer((req, res) => {
  started
    .then(() => post('Profiler.takePreciseCoverage'))
    .then(({ result }) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url === '/take' ? ranIn(result) : {}));
    })
    .catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
});
control.listen(Number(process.env.REQUEST_PATH_PORT), '127.0.0.1').unref();
`;

/** The source of a built file: dist/x.js is src/x.ts, clients/<name>/dist/x.js its src/x.ts. */
function sourceOf(built: string): string | undefined {
  const source = built.replace(/^((?:clients\/[^/]+\/)?)dist\/(.+)\.js$/, '$1src/$2.ts');
  return existsSync(join(ROOT, source)) ? source : undefined;
}

/** Lines as `wc -l` would count them, and a last line without its newline too. */
function linesOf(path: string): number {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return text.split('\n').length - (text === '' || text.endsWith('\n') ? 1 : 0);
}

interface FileFigures {
  path: string;
  functions: number;
  lines: number;
  note: string;
}

function figuresOf(ran: Record<string, number>): FileFigures[] {
  const files = Object.entries(ran).map(([built, functions]) => {
    const source = sourceOf(built);
    const path = source ?? built;
    const note = source ? '' : ' (no source found: the built file)';
    return { path, functions, lines: linesOf(path), note };
  });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The command line: the goal's limits (undefined when not given) and the server's log level. */
function options(): { maxFiles?: number; maxLines?: number; logLevel: string } {
  const { values } = parseArgs({
    options: {
      'max-files': { type: 'string' },
      'max-lines': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
    },
  });
  const number = (flag: string, value?: string) => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw new Error(`--${flag} ${value} is not a whole number`);
    return Number(value);
  };
  return {
    maxFiles: number('max-files', values['max-files']),
    maxLines: number('max-lines', values['max-lines']),
    logLevel: values['log-level'],
  };
}

/** The files that ran code for one warm request, measured in a server started for it. */
async function measure(preload: string, logLevel: string): Promise<Record<string, number>> {
  const port = await freePort();
  const node = [process.execPath, ...serverNodeFlags(join(ROOT, 'package.json'))];
  const env = {
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    REQUEST_PATH_PORT: String(port),
    REQUEST_PATH_ROOT: ROOT,
  };
  const { port: appPort, process: server } = await startServer(
    'request-path',
    [...node, '-r', preload, MAIN_JS],
    env,
  );
  try {
    await server.untilListening(port, '127.0.0.1', 10_000);
    const headers = { 'content-type': 'application/json' };
    const body = JSON.stringify(README_BODY);
    const request = async (what: string) => {
      const answer = await send({ port: appPort, method: 'POST', path: ROUTE, headers, body });
      if (answer.status !== 200)
        throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    };
    const control = async (path: string) => {
      const answer = await send({ port, path });
      if (answer.status !== 200)
        throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
      return answer.json as Record<string, number>;
    };
    for (let i = 1; i <= WARM_UPS; i++) await request(`warm-up ${i}`);
    await sleep(SETTLE_BEFORE_MS);
    await control('/reset');
    await request('the measured request');
    await sleep(SETTLE_AFTER_MS);
    return await control('/take');
  } catch (error) {
    const stderr = `the server's stderr:\n${server.stderr}`;
    throw new Error(`${(error as Error).message}\n${stderr}`, { cause: error });
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { maxFiles, maxLines, logLevel } = options();
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: npm run build first`);
  const dir = mkdtempSync(join(tmpdir(), 'request-path-'));
  let ran: Record<string, number>;
  try {
    const preload = join(dir, 'preload.cjs');
    writeFileSync(preload, PRELOAD);
    ran = await measure(preload, logLevel);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const files = figuresOf(ran);
  if (files.length === 0) throw new Error('no file of dist/ ran: the coverage measured nothing');
  console.log(
    `Node ${process.version}: the project's files whose code ran for one warm POST ${ROUTE} ` +
      `(the README's body, after ${WARM_UPS} warm ones; LOG_LEVEL=${logLevel})`,
  );
  const width = Math.max(...files.map((f) => f.path.length));
  for (const { path, functions, lines, note } of files)
    console.log(
      `${path.padEnd(width)} ${String(functions).padStart(3)} functions ran, ${lines} lines${note}`,
    );
  const total = files.reduce((sum, f) => sum + f.lines, 0);
  if (maxFiles !== undefined || maxLines !== undefined) {
    const over = [
      maxFiles !== undefined && files.length > maxFiles
        ? `${files.length} files > ${maxFiles}`
        : '',
      maxLines !== undefined && total > maxLines ? `${total} lines > ${maxLines}` : '',
    ].filter((reason) => reason !== '');
    const limits = [
      maxFiles === undefined ? '' : `${maxFiles} files`,
      maxLines === undefined ? '' : `${maxLines} lines`,
    ].filter((limit) => limit !== '');
    const verdict = over.length === 0 ? 'PASS' : `FAIL (${over.join(', ')})`;
    console.log(`goal: at most ${limits.join(' and ')}: ${verdict}`);
    if (over.length > 0) process.exitCode = 2;
  }
  console.log(`${files.length} files, ${total} lines`);
}

runMain(main);
