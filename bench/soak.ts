import { LoadSummary, unexpectedAnswers } from './load';
import { rssBytes } from './processes';

export interface RssSample {
  seconds: number;
  bytes: number;
}

/** Samples a process's RSS every `everyMs` until `until` settles; the samples, the first at 0 s. */
export async function sampleRss(
  pid: number,
  everyMs: number,
  until: Promise<unknown>,
): Promise<RssSample[]> {
  const start = Date.now();
  const samples: RssSample[] = [{ seconds: 0, bytes: rssBytes(pid) }];
  const timer = setInterval(() => {
    samples.push({ seconds: Math.round((Date.now() - start) / 1000), bytes: rssBytes(pid) });
  }, everyMs);
  try {
    await until;
  } finally {
    clearInterval(timer);
  }
  return samples;
}

export interface SoakVerdict {
  /** The first sample under load (after one interval), the last, and the highest. */
  first: number;
  last: number;
  max: number;
  /** Least-squares slope over the samples under load, in MiB per minute. */
  slopeMiBPerMinute: number;
  flat: boolean;
}

/**
 * RSS is flat when the last sample is within 10 % of the first sample under load (the sample at
 * 0 s is before the load, so it is left out: the heap grows to its working size in the first
 * seconds) and the fitted slope is under 2 MiB per minute (a leak of even 100 bytes a request
 * shows as tens of MiB per minute at full load).
 */
export function soakVerdict(samples: RssSample[]): SoakVerdict {
  const loaded = samples.length > 2 ? samples.slice(1) : samples;
  const first = loaded[0].bytes;
  const last = loaded[loaded.length - 1].bytes;
  const max = Math.max(...loaded.map((s) => s.bytes));
  const n = loaded.length;
  const meanX = loaded.reduce((sum, s) => sum + s.seconds, 0) / n;
  const meanY = loaded.reduce((sum, s) => sum + s.bytes, 0) / n;
  const covariance = loaded.reduce((sum, s) => sum + (s.seconds - meanX) * (s.bytes - meanY), 0);
  const variance = loaded.reduce((sum, s) => sum + (s.seconds - meanX) ** 2, 0);
  const slopeMiBPerMinute = variance === 0 ? 0 : ((covariance / variance) * 60) / 2 ** 20;
  return {
    first,
    last,
    max,
    slopeMiBPerMinute,
    flat: last <= first * 1.1 && slopeMiBPerMinute < 2,
  };
}

export interface SoakResult {
  verdict?: SoakVerdict;
  /** The samples in MiB, comma-separated. */
  points: string;
  problem?: string;
}

/** Runs `load` against the process and samples its RSS every 10 s until the load ends. */
export async function soak(pid: number, load: Promise<LoadSummary>): Promise<SoakResult> {
  const samples = await sampleRss(pid, 10_000, load);
  const problem = unexpectedAnswers(await load, 200);
  const points = samples.map((s) => (s.bytes / 2 ** 20).toFixed(0)).join(', ');
  const verdict = soakVerdict(samples);
  // Wrong answers during the soak: its RSS says nothing about the service's.
  return { verdict: problem ? { ...verdict, flat: false } : verdict, points, problem };
}
