/**
 * Multiplying a decimal such as 1.005 by 100 gives 100.49999999999999 in binary floating point;
 * this nudge of a few units in the last place lets it round the way the decimal reads (to 101).
 */
const NUDGE = 1 + 4 * Number.EPSILON;

export function roundHalfAwayFromZero(x: number): number {
  const rounded = Math.round(Math.abs(x) * NUDGE);
  return x < 0 && rounded !== 0 ? -rounded : rounded;
}

export const toCents = (usd: number): number => roundHalfAwayFromZero(usd * 100);

/** The nearest double, which JSON prints with at most two decimals. */
export const toUsd = (cents: number): number => cents / 100;

export const percentOf = (part: number, whole: number): number =>
  whole === 0 ? 0 : roundHalfAwayFromZero((part * 10_000) / whole) / 100;
