#!/usr/bin/env node
// The build's last step (npm run build): dist/main.js and everything it loads, Nest's ESM packages
// included, become one CommonJS file in place of dist/main.js. A start then reads one file instead
// of resolving and linking some 2,000 modules through require(esm): the first answer comes about
// 0.6 s sooner on one core (bench/README.md, "From the first request").
'use strict';

const { readFile } = require('node:fs/promises');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const esbuild = require('esbuild');

const MAIN = join(__dirname, '..', 'dist', 'main.js');
const BANNER = '// dist/main.js bundled by scripts/bundle.cjs';

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
  if (readFileSync(MAIN, 'utf8').startsWith(BANNER)) {
    console.log('dist/main.js is already a bundle: npm run build compiles it first');
    return;
  }
  const result = await esbuild.build({
    entryPoints: [MAIN],
    outfile: MAIN,
    allowOverwrite: true,
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
  writeFileSync(MAIN, namedOnce(readFileSync(MAIN, 'utf8')));
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
