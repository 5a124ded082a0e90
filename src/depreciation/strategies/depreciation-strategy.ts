/** What a strategy knows about the vehicle when it values it at some age. */
export interface Usage {
  /** Whole years from the purchase year to the current year (the age of the last breakdown entry). */
  readonly ownedYears: number;
  /** Odometer reading now, in miles (0 when the client sent none). */
  readonly currentMileage: number;
}

/**
 * Values a vehicle at one age of its life.
 * Returns the share of the purchase price it is worth at `age` (0 ≤ age ≤ ownedYears), from 0 to 1.
 * A strategy never returns more at a higher age than at a lower one.
 */
export interface DepreciationStrategy {
  valueAt(age: number, usage: Usage): number;
}
