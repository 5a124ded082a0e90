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
  /** The highest sample of the first half of the load, and of the second half. */
  firstHalfPeak: number;
  secondHalfPeak: number;
  flat: boolean;
}

/**
 * RSS under load is a sawtooth (the heap grows to its working size, then collections and the
 * allocator move it up and down by tens of MiB), so "flat" compares peaks, not single samples:
 * the second half of the soak sets no new high more than 5 % above the first half's. A leak makes
 * every half higher than the one before; a steady state repeats its peaks.
 */
export function soakVerdict(samples: RssSample[]): SoakVerdict {
  const loaded = samples.length > 2 ? samples.slice(1) : samples; // 0 s: before the load
  const bytes = loaded.map((s) => s.bytes);
  const half = Math.ceil(bytes.length / 2);
  const firstHalfPeak = Math.max(...bytes.slice(0, half));
  const secondHalfPeak = Math.max(...bytes.slice(half), 0);
  return {
    first: bytes[0],
    last: bytes[bytes.length - 1],
    max: Math.max(...bytes),
    firstHalfPeak,
    secondHalfPeak,
    flat: bytes.length >= 4 && secondHalfPeak <= firstHalfPeak * 1.05,
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
