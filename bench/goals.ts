import {
  fixed,
  median,
  mib,
  p99,
  pairedRatio,
  type Results,
  type Row,
  rps,
  type Soak,
  times,
} from './report';

/**
 * The goals of bench/README.md, each with what this run measured and PASS, FAIL or not measured.
 * The service is held to the bare Nest route (bench/bare-nest.ts); the 429 path to the Express
 * ceiling's 200 path.
 */
type Goal = [name: string, measured: string | undefined, pass: boolean | undefined];
const shown = (ratio: number, text = times(ratio)) => (Number.isFinite(ratio) ? text : undefined);
const versus = (a: number, b: number, unit: string, digits = 2) =>
  shown(a / b, `${fixed(a, digits)} ${unit} vs ${fixed(b, digits)} ${unit}: ${times(a / b)}`);

/** Flat: the second half of the soak sets no peak 5 % over the first half's (RSS is a sawtooth). */
function soakPeaks(soak: Soak | undefined) {
  const loaded = soak && soak.samples.length > 2 ? soak.samples.slice(1) : soak?.samples; // 0 s: before load
  if (!soak || !loaded) return undefined;
  const half = Math.ceil(loaded.length / 2);
  const [first, second] = [Math.max(...loaded.slice(0, half)), Math.max(...loaded.slice(half), 0)];
  return { first, second, flat: !soak.problem && loaded.length >= 4 && second <= first * 1.05 };
}

function speedGoals(rows: Row[]): Goal[] {
  const row = (name: string) => rows.find((r) => r.target.name === name && r.workload === 'readme');
  const [service, bare] = [row('service'), row('bare-nest')];
  // Paired by round (report.ts, pairedRatio): the medians of the two rows may come from rounds
  // the host ran at different speeds.
  const throughput = pairedRatio(service, bare, (s) => s.requestsPerSecond);
  const tail = pairedRatio(service, bare, (s) => s.p99Ms);
  const refusals = rps(row('service-429')) / rps(row('express-ceiling'));
  const redis = rps(row('service-redis')) / rps(service);
  return [
    [
      'service ≥ 0.85 × the bare Nest route',
      shown(throughput, `${times(throughput)} (the median of the rounds’ ratios)`),
      throughput >= 0.85,
    ],
    [
      'p99 at 50 connections ≤ 1.5 × the bare Nest route’s',
      shown(
        tail,
        `${times(tail)} (the median of the rounds’ ratios; medians ${fixed(p99(service))} ms vs ${fixed(p99(bare))} ms)`,
      ),
      tail <= 1.5,
    ],
    ['429 path ≥ 0.90 × the Express ceiling’s 200 path', shown(refusals), refusals >= 0.9],
    [
      'Redis store ≥ 75 % of the in-memory store',
      shown(redis, `${fixed(redis * 100, 1)} %`),
      redis >= 0.75,
    ],
  ];
}

function memoryGoals({ store, soaks, startUps }: Results): Goal[] {
  const soak = (name: string) => soaks.find((s) => s.name === name && !s.problem);
  const rss = (name: string) => soak(name)?.samples.at(-1) ?? NaN;
  const [service, bare] = [rss('service') / 2 ** 20, rss('bare-nest') / 2 ** 20];
  const start = (name: string) => median(startUps.find((s) => s.name === name)?.seconds ?? []);
  const [started, late] = [start('service'), start('service') - start('bare-nest')];
  const slower = `${fixed(started)} s, ${fixed(late)} s after the bare route`;
  const bytes = store.map((m) => `${m.kind} ${m.clients / 1e3}k: ${m.bytesPerClient.toFixed(0)} B`);
  const peaks = soakPeaks(soaks.find((s) => s.name === 'service'));
  return [
    [
      'RSS after the soak ≤ 1.5 × the bare Nest route’s',
      versus(service, bare, 'MiB', 0),
      service <= 1.5 * bare,
    ],
    [
      'first answer ≤ 0.15 s after the bare Nest route’s',
      Number.isFinite(late) ? slower : undefined,
      late <= 0.15,
    ],
    [
      'in-memory store ≤ 120 bytes per client',
      bytes.join(', ') || undefined,
      Math.max(...store.map((m) => m.bytesPerClient)) <= 120,
    ],
    [
      'RSS flat over the service’s soak',
      peaks && `peaks ${mib(peaks.first)} → ${mib(peaks.second)} MiB (first → second half)`,
      peaks?.flat,
    ],
  ];
}

export function goalsTable(results: Results): string {
  const line = ([name, measured, pass]: Goal) =>
    measured === undefined
      ? `| ${name} | not measured (a row, soak or start-up missing or failed) | not measured |`
      : `| ${name} | ${measured} | ${pass ? 'PASS' : '**FAIL**'} |`;
  const goals = [...speedGoals(results.rows), ...memoryGoals(results)];
  return `| goal | measured | result |\n|---|---|---|\n${goals.map(line).join('\n')}`;
}
