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

export const centsAt = (
  strategy: DepreciationStrategy,
  priceCents: number,
  age: number,
  usage: Usage,
): number => roundHalfAwayFromZero(priceCents * strategy.valueAt(age, usage));

export const entryOf = (
  year: number,
  age: number,
  cents: number,
  previousCents: number,
): YearlyEntry => {
  const lost = previousCents - cents;
  return {
    year,
    age,
    value: toUsd(cents),
    depreciation: toUsd(lost),
    depreciationPercent: percentOf(lost, previousCents),
  };
};

/** The vehicle today: what a projection continues from. */
export interface Today {
  readonly strategy: DepreciationStrategy;
  readonly priceCents: number;
  readonly currentYear: number;
  readonly age: number;
  readonly currentMileage: number;
  readonly currentCents: number;
}

/**
 * Valued as a breakdown values its last entry (docs/model.md, "Projection"), never with today's
 * usage, whose even accrual would divide by the age (0 in the purchase year).
 */
export function projectionOf(today: Today, years: number): YearlyEntry[] {
  const { strategy, priceCents, currentYear, age } = today;
  const pace = today.currentMileage / Math.max(age, 1);
  const entries = new Array<YearlyEntry>(years);
  let previousCents = today.currentCents;
  for (let ahead = 1; ahead <= years; ahead++) {
    const owned = age + ahead;
    const usage = { ownedYears: owned, currentMileage: pace * owned };
    const cents = centsAt(strategy, priceCents, owned, usage);
    entries[ahead - 1] = entryOf(currentYear + ahead, owned, cents, previousCents);
    previousCents = cents;
  }
  return entries;
}
