/**
 * Preloaded (`node -r`) into a profiled server: a normal exit on SIGTERM or SIGINT, so that
 * `--cpu-prof` writes its profile (a process killed by a signal writes none).
 */
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
