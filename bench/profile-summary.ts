/** The parts of a V8 .cpuprofile (`--cpu-prof`) that self time needs. */
export interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
  /** Microseconds on the monotonic clock (the one of `process.hrtime`). */
  startTime: number;
}

export interface SelfTime {
  name: string;
  /** Milliseconds of samples whose top frame was this function. */
  ms: number;
}

export interface Aggregated {
  functions: SelfTime[];
  packages: SelfTime[];
  /** Sampled time in the window, and the part of it the process was idle. */
  totalMs: number;
  idleMs: number;
}

/** Where a frame comes from: a node_modules package, node's own JS, the project, or V8/native. */
function origin(url: string, root: string): string {
  if (!url) return '(V8 and native code: gc, builtins)';
  if (url.startsWith('node:')) return 'node: internals';
  const path = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules) return inModules[1];
  return path.startsWith(root) ? path.slice(root.length + 1).split('/')[0] : path;
}

function shortUrl(url: string, root: string): string {
  const path = url.replace(/^file:\/\//, '');
  const short = path.startsWith(root) ? path.slice(root.length + 1) : path;
  return short.replace(/^.*node_modules\//, '');
}

const sorted = (map: Map<string, number>): SelfTime[] =>
  [...map].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);

/**
 * Self time by function (name, file and line) and by package, over the samples taken from
 * `fromMicros` on (monotonic clock), idle time apart. A sample's time is the delta to the next one.
 */
export function aggregate(profile: Profile, root: string, fromMicros = 0): Aggregated {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let at = profile.startTime;
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    const frame = nodes.get(id);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!frame || at < fromMicros) return;
    totalMs += ms;
    if (frame.functionName === '(idle)') idleMs += ms;
    if (frame.functionName === '(idle)') return;
    const where = frame.url ? ` ${shortUrl(frame.url, root)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const pkg = origin(frame.url, root);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  });
  return { functions: sorted(byFunction), packages: sorted(byPackage), totalMs, idleMs };
}

/** The top functions and packages, as a share of the busy (not idle) time. */
export function formatTop(result: Aggregated, count: number): string {
  const { functions, packages, totalMs, idleMs } = result;
  const busy = totalMs - idleMs;
  const line = (t: SelfTime) =>
    `${t.ms.toFixed(0).padStart(7)} ms ${((t.ms / busy) * 100).toFixed(1).padStart(5)} %  ${t.name}`;
  const idle = ((idleMs / totalMs) * 100).toFixed(0);
  return [
    `Top ${count} functions by self time, % of ${busy.toFixed(0)} ms busy (idle ${idle} % of the window):`,
    ...functions.slice(0, count).map(line),
    '',
    'By package:',
    ...packages.slice(0, 12).map(line),
  ].join('\n');
}
