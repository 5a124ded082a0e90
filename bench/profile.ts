import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as c from './common';
import { runLoad, stopLoad } from './load';

/**
 * `npm run bench:profile` (bench/README.md): the service under `--cpu-prof` at full load; the top
 * self times of the measured load (not the warm-up), the profile kept in bench/profiles/. The
 * service exits 0 on SIGTERM, so the profile gets written.
 */
interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number; // µs, on process.hrtime's clock
}

/** Self time by function and by package (or project folder, node internals, V8) from `from` on. */
function summarise(profile: Profile, from: number): string {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const [byFunction, byPackage] = [new Map<string, number>(), new Map<string, number>()];
  const add = (map: Map<string, number>, name: string, ms: number) =>
    map.set(name, (map.get(name) ?? 0) + ms);
  let [at, total, idle] = [profile.startTime, 0, 0];
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    const [frame, ms] = [frames.get(id), (profile.timeDeltas[i + 1] ?? 0) / 1000];
    if (!frame || at < from) return;
    total += ms;
    if (frame.functionName === '(idle)') return void (idle += ms);
    const path = frame.url.replace(/^file:\/\//, '').replace(`${c.ROOT}/`, '');
    const line = frame.url
      ? ` ${path.replace(/^.*node_modules\//, '')}:${frame.lineNumber + 1}`
      : '';
    add(byFunction, `${frame.functionName || '(anonymous)'}${line}`, ms);
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split(/[/:]/)[0];
    add(byPackage, frame.url ? pkg || path : '(V8 and native code: gc, builtins)', ms);
  });
  const busy = total - idle;
  const line = ([name, ms]: [string, number]) =>
    `${ms.toFixed(0).padStart(7)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)} %  ${name}`;
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(line);
  const idleShare = ((idle / total) * 100).toFixed(0);
  const head = `Top 25 functions by self time, % of ${busy.toFixed(0)} ms busy (idle ${idleShare} % of the window):`;
  return [head, ...top(byFunction, 25), '', 'By package:', ...top(byPackage, 12)].join('\n');
}

async function main(): Promise<void> {
  const refusing = process.env.BENCH_PROFILE_STATUS === '429';
  const largest = process.env.BENCH_PROFILE_BODY === 'largest';
  const name = `service-${refusing ? '429' : largest ? 'largest' : '200'}`;
  const out = join(c.ROOT, 'bench', 'profiles', name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const command = [process.execPath, '--cpu-prof', `--cpu-prof-dir=${out}`, ...c.SERVICE_ARGS];
  const env = { ...c.SERVER_ENV, RATE_LIMIT_PER_DAY: refusing ? '1' : '1000000000' };
  const server = await c.startServer(`profile-${name}`, command, env);
  const url = `http://127.0.0.1:${server.port}${c.ROUTE}`;
  const load = { url, body: JSON.stringify(largest ? c.LARGEST_BODY : c.README_BODY) };
  await runLoad({ ...load, connections: 50, seconds: 2 }); // the warm-up, left out of the summary
  const from = Number(process.hrtime.bigint() / 1000n);
  const seconds = c.envNumber('BENCH_PROFILE_SECONDS', 10);
  const summary = await runLoad({ ...load, connections: 50, seconds });
  stopLoad();
  await server.process.stop(10_000);
  const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${out}: ${server.process.stderr}`);
  const profile = JSON.parse(readFileSync(join(out, file), 'utf8')) as Profile;
  const rps = `${Math.round(summary.requestsPerSecond)} req/s under the profiler`;
  const text = `${name}: ${rps}, answers ${JSON.stringify(summary.statuses)}\n\n${summarise(profile, from)}`;
  writeFileSync(join(out, 'top.txt'), `${text}\n`);
  console.log(`${text}\n\nProfile: ${join(out, file)}`);
}

c.runMain(main);
