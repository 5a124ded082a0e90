import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Preloaded into a server under the ablation's tail run (`node --require observe.js`): SIGUSR2
 * starts a window of the event loop's delay histogram (1 ms resolution), the next SIGUSR2 ends it
 * and writes one line to stderr, `observe {"p50Ms":…,"p99Ms":…,"maxMs":…,"meanMs":…}`.
 */
const delay = monitorEventLoopDelay({ resolution: 1 });
let open = false;
process.on('SIGUSR2', () => {
  open = !open;
  if (open) {
    delay.reset();
    delay.enable();
    return;
  }
  delay.disable();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const figures = {
    p50Ms: ms(delay.percentile(50)),
    p99Ms: ms(delay.percentile(99)),
    maxMs: ms(delay.max),
    meanMs: ms(delay.mean),
  };
  process.stderr.write(`observe ${JSON.stringify(figures)}\n`);
});
