#!/usr/bin/env node
// The build's last step (npm run build): dist/main.js and everything it loads, Nest's ESM packages
// included, become one CommonJS file, dist/main.bundle.js. A start then reads one file instead of
// resolving and linking some 2,000 modules through require(esm): the first answer comes about
// 0.6 s sooner on one core (bench/README.md, "From the first request"). dist/main.js becomes
// scripts/main-loader.cjs, which runs the bundle with the V8 code cache made here by starting it
// once and sending it its first requests: about 0.3 s less again.
'use strict';

const { spawn } = require('node:child_process');
const { once } = require('node:events');
const {
  copyFileSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { readFile } = require('node:fs/promises');
const { createServer } = require('node:net');
const { join } = require('node:path');
const esbuild = require('esbuild');

const DIST = join(__dirname, '..', 'dist');
const MAIN = join(DIST, 'main.js');
const BUNDLE = join(DIST, 'main.bundle.js');
const CACHE = join(DIST, 'main.bundle.cache');
const BANNER = '// dist/main.bundle.js: dist/main.js bundled by scripts/bundle.cjs';

// Left to Node at run time: Nest's optional packages this service does not install (loaded in a
// try), the OpenTelemetry packages (one copy for the SDK that is loaded only when traces are on, and
// prom-client), and swagger-ui-dist (its files are served from its folder).
const EXTERNAL = [
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/websockets',
  '@nestjs/websockets/*',
  '@fastify/static',
  '@nestjs/axios',
  '@nestjs/typeorm',
  '@nestjs/mongoose',
  '@nestjs/sequelize',
  '@mikro-orm/core',
  'class-transformer/storage',
  '@opentelemetry/*',
  'swagger-ui-dist',
  'swagger-ui-dist/*',
];

// Nest's packages load some of their dependencies with createRequire(import.meta.url), which a
// bundler leaves to run time (evanw/esbuild#1828): a second copy of @nestjs/swagger, class-validator
// and class-transformer would load from node_modules beside the bundled ones. Here they are the
// bundle's own require.
const sameRequire = {
  name: 'same-require',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.js$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (!text.includes('createRequire(import.meta.url)')) return undefined;
      const contents = text
        .replaceAll('const require = createRequire(import.meta.url);', '')
        .replaceAll('createRequire(import.meta.url)', 'require');
      return { contents, loader: 'js' };
    });
  },
};

async function bundle() {
  if (existsSync(BUNDLE)) {
    console.log('dist/main.bundle.js is there already: npm run build compiles dist/main.js first');
    return;
  }
  const result = await esbuild.build({
    entryPoints: [MAIN],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    // Nest names providers, modules and log contexts after their classes.
    keepNames: true,
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    sourcesContent: false,
    external: EXTERNAL,
    plugins: [sameRequire],
    banner: { js: `${BANNER}\n"use strict";\n${NAME_ONCE}` },
    logLevel: 'warning',
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  if (result.warnings.length > 0) throw new Error('bundle: fix the warnings above');
  writeFileSync(BUNDLE, namedOnce(readFileSync(BUNDLE, 'utf8')));
  copyFileSync(join(__dirname, 'main-loader.cjs'), MAIN);
  rmSync(`${MAIN}.map`, { force: true }); // tsc's map of the main.js the loader replaced
  await writeCodeCache();
}

// The README's request, and the answers a client meets first: a refusal, an unknown route, health.
const WARM_UP = [
  ...Array.from({ length: 40 }, () => ({
    method: 'POST',
    path: '/api/depreciate',
    body: '{"purchaseYear":2020,"purchasePrice":25000,"vehicleType":"sedan","currentMileage":50000}',
  })),
  { method: 'POST', path: '/api/depreciate', body: '{"purchaseYear":"soon"}' },
  { method: 'POST', path: '/api/depreciate', body: '{' },
  { method: 'GET', path: '/api/nowhere' },
  { method: 'GET', path: '/health/ready' },
];

/** Starts the built server as operators do, sends WARM_UP, and stops it: it writes the cache. */
async function writeCodeCache() {
  const port = await freePort();
  const env = { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0' };
  const server = spawn(
    process.execPath,
    ['--disable-sigusr1', '--require', join(__dirname, 'code-cache-writer.cjs'), MAIN],
    { env: { ...env, LOG_LEVEL: 'silent', CODE_CACHE_OUT: CACHE }, stdio: 'inherit' },
  );
  const exited = once(server, 'exit');
  try {
    await untilAnswering(port, exited);
    for (const { method, path, body } of WARM_UP) {
      const headers = body === undefined ? {} : { 'content-type': 'application/json' };
      await (await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body })).text();
    }
  } finally {
    server.kill('SIGTERM');
  }
  const [code] = await exited;
  if (code !== 0 || !existsSync(CACHE) || statSync(CACHE).size === 0)
    throw new Error(`bundle: the server that makes the code cache exited with ${code}, no cache`);
}

async function untilAnswering(port, exited) {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let tries = 0; tries < 600 && !gone; tries++) {
    const live = await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => undefined);
    if (live?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('bundle: the built server did not answer within 30 s');
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

// keepNames names every function as it is made, and a function so named costs more each time it
// runs: warm requests took 13 % more instructions than the unbundled build (callgrind, one core).
// Without keepNames, Nest's classes that the bundle renames would log as _InstanceLoader and
// ConfigHostModule2. So this helper names only a class or function whose name is not the one
// wanted; arrows and methods (no prototype) keep the names V8 gives them. It is defined in the
// banner, and esbuild's helper is replaced by a reference to it, padded to the same length, so the
// source map still holds.
const NAME_ONCE =
  'var __nameOnce = (fn, name) => fn.name === name || fn.prototype === undefined ? fn : ' +
  'Object.defineProperty(fn, "name", { value: name, configurable: true });';
const NAME_HELPER = 'var __name=(target,value)=>__defProp(target,"name",{value,configurable:!0});';

function namedOnce(text) {
  const at = text.indexOf(NAME_HELPER);
  if (at < 0 || text.indexOf(NAME_HELPER, at + 1) >= 0)
    throw new Error("bundle: esbuild's __name helper is not the one scripts/bundle.cjs replaces");
  return text.replace(NAME_HELPER, 'var __name=__nameOnce;'.padEnd(NAME_HELPER.length));
}

bundle().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
