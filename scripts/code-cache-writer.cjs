// Preloaded by scripts/bundle.cjs into the built server it starts and sends its first requests to:
// as that process exits, V8's code cache of the bundle, with all it compiled by then, is written to
// CODE_CACHE_OUT (dist/main.bundle.cache, which dist/main.js reads).
'use strict';

const { writeFileSync } = require('node:fs');

process.once('exit', () => {
  // The main module (dist/main.js) by its path: `require.main` is unset when a preload is loaded.
  const { script } = require.cache[process.argv[1]].exports;
  writeFileSync(process.env.CODE_CACHE_OUT, script.createCachedData());
});
