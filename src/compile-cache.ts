import { enableCompileCache } from 'node:module';

// Imported first by main.ts: V8's code cache for every module loaded after it (Nest, Express, the
// service), so a fresh replica compiles less before its first answer (bench/README.md, "From the
// first request"). NODE_COMPILE_CACHE names its directory (the image's is made at build time);
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
enableCompileCache();
