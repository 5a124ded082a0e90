// dist/main.js, written by scripts/bundle.cjs: it runs the bundle, dist/main.bundle.js, with the V8
// code cache the build made of it (dist/main.bundle.cache): the bytecode of all that a start and its
// first answers ran, so a new process compiles next to nothing before it answers. V8 checks the
// cache against the source, its own version and its flags, and compiles as usual if it does not match.
'use strict';

const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const file = join(__dirname, 'main.bundle.js');
// As Node wraps a CommonJS module. The bundle's first line is a comment, so its columns hold.
const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
const script = new Script(source, {
  filename: file,
  cachedData: readIfThere(join(__dirname, 'main.bundle.cache')),
  importModuleDynamically: (specifier) => import(specifier),
});
// For the build, which writes the cache at the end of a start (scripts/code-cache-writer.cjs).
module.exports = { script };
// The bundle runs as this module, the process's main one, as it did when it was dist/main.js.
// Node maps no stack trace of vm.Script code: `node --enable-source-maps dist/main.bundle.js` does.
script.runInThisContext().call(exports, exports, createRequire(file), module, file, __dirname);

function readIfThere(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}
