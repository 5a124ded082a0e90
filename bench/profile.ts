import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad, stopLoad } from './load';
import { BENCH_JS, envNumber, LARGEST_BODY, README_BODY, ROOT } from './project';
import { stopAllOnExit } from './processes';
import { aggregate, formatTop, Profile } from './profile-summary';
import { commonEnv, NO_LIMIT, startTarget, Target, urlOf } from './targets';

/**
 * `npm run bench:profile`: the built service under `--cpu-prof`, pinned like the bench, under full
 * load for BENCH_PROFILE_SECONDS (10) after a 2 s warm-up. Prints the functions with the most self
 * time during the measured load (start-up and warm-up left out) and keeps the profile in
 * bench/profiles/ (open it in Chrome DevTools or speedscope for the flame graph).
 * BENCH_PROFILE_BODY=largest profiles the 127-entry answer, BENCH_PROFILE_STATUS=429 the refusals.
 */
const PROFILE_DIR = join(ROOT, 'bench', 'profiles');
const seconds = envNumber('BENCH_PROFILE_SECONDS', 10);
const refusing = process.env.BENCH_PROFILE_STATUS === '429';
const body = process.env.BENCH_PROFILE_BODY === 'largest' ? LARGEST_BODY : README_BODY;

async function main(): Promise<void> {
  stopAllOnExit();
  const name = `service-${refusing ? '429' : process.env.BENCH_PROFILE_BODY === 'largest' ? 'largest' : '200'}`;
  const out = join(PROFILE_DIR, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const target: Target = {
    name: `profile-${name}`,
    command: [
      process.execPath,
      '--cpu-prof',
      `--cpu-prof-dir=${out}`,
      '-r',
      BENCH_JS('exit-on-signal'),
      join(ROOT, 'dist', 'main.js'),
    ],
    env: { ...commonEnv(), RATE_LIMIT_PER_DAY: String(refusing ? 1 : NO_LIMIT) },
    rateLimit: refusing ? 1 : NO_LIMIT,
  };
  await startTarget(target);
  const options = { url: urlOf(target), body: JSON.stringify(body), connections: 50, seconds: 2 };
  await runLoad(options); // warm-up, in the profile too
  const from = Number(process.hrtime.bigint() / 1000n); // the profile's clock, in µs
  const summary = await runLoad({ ...options, seconds });
  stopLoad();
  await target.running?.stop();
  const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${out}: ${target.running?.stderr()}`);
  const profile = JSON.parse(readFileSync(join(out, file), 'utf8')) as Profile;
  const statuses = JSON.stringify(summary.statuses);
  const text = [
    `${name}: ${Math.round(summary.requestsPerSecond)} req/s under the profiler, answers ${statuses}`,
    formatTop(aggregate(profile, ROOT, from), 25),
  ].join('\n\n');
  writeFileSync(join(out, 'top.txt'), `${text}\n`);
  console.log(`${text}\n\nProfile: ${join(out, file)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
