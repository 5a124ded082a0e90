import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';

/**
 * Preloaded into a server by the ablation (`node --require observe.js`): SIGUSR2 opens a window,
 * the next SIGUSR2 closes it and writes one line to stderr,
 * `observe {"allocatedBytes":…,"p50Ms":…,"p99Ms":…,"maxMs":…,"meanMs":…}`: the bytes the heap
 * took over the window (what each collection found, less what the one before it left, and what
 * is left since the last; v8.GCProfiler, the data --trace-gc prints) and the event loop's delay
 * histogram (1 ms resolution).
 */
const delay = monitorEventLoopDelay({ resolution: 1 });
let profiler: GCProfiler | undefined;
let usedAtStart = 0;

type Stats = { heapStatistics: { usedHeapSize: number } };
type Collection = { beforeGC: Stats; afterGC: Stats };

function allocatedSince(collections: Collection[]): number {
  let left = usedAtStart;
  let allocated = 0;
  for (const { beforeGC, afterGC } of collections) {
    allocated += Math.max(0, beforeGC.heapStatistics.usedHeapSize - left);
    left = afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + Math.max(0, getHeapStatistics().used_heap_size - left);
}

process.on('SIGUSR2', () => {
  if (profiler === undefined) {
    delay.reset();
    delay.enable();
    profiler = new GCProfiler();
    usedAtStart = getHeapStatistics().used_heap_size;
    profiler.start();
    return;
  }
  const collections = (profiler.stop()?.statistics ?? []) as Collection[];
  profiler = undefined;
  delay.disable();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const figures = {
    allocatedBytes: allocatedSince(collections),
    p50Ms: ms(delay.percentile(50)),
    p99Ms: ms(delay.percentile(99)),
    maxMs: ms(delay.max),
    meanMs: ms(delay.mean),
  };
  process.stderr.write(`observe ${JSON.stringify(figures)}\n`);
});
