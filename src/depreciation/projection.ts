import type { YearlyEntryDto as YearlyEntry } from './dto/depreciation-response.dto';
import type { DepreciationStrategy, Usage } from './strategies/strategies';

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

/**
 * The entries for `ages`, each valued with its usage, the first one's loss from `previousCents`:
 * the breakdown (ages 0 to today, from the price) and the projection (the years ahead, from today),
 * and the last one's value in cents.
 */
export function yearlyEntries(
  valuation: { strategy: DepreciationStrategy; priceCents: number; purchaseYear: number },
  ages: { from: number; to: number },
  previousCents: number,
  usageAt: (age: number) => Usage,
): { entries: YearlyEntry[]; lastCents: number } {
  const { strategy, priceCents, purchaseYear } = valuation;
  const entries = new Array<YearlyEntry>(ages.to - ages.from + 1);
  for (let age = ages.from; age <= ages.to; age++) {
    const cents = roundHalfAwayFromZero(priceCents * strategy.valueAt(age, usageAt(age)));
    const lost = previousCents - cents;
    entries[age - ages.from] = {
      year: purchaseYear + age,
      age,
      value: toUsd(cents),
      depreciation: toUsd(lost),
      depreciationPercent: percentOf(lost, previousCents),
    };
    previousCents = cents;
  }
  return { entries, lastCents: previousCents };
}
