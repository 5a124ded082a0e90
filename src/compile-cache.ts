import { enableCompileCache } from 'node:module';

// Imported first by main.ts: V8's code cache for every module loaded after it, so a fresh replica
// compiles less before its first answer (bench/README.md, "From the first request"). Its directory:
// NODE_COMPILE_CACHE (made at build time in the image); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
enableCompileCache();
