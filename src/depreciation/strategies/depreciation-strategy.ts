export interface Usage {
  /** The age of the last breakdown entry. */
  readonly ownedYears: number;
  /** 0 when the client sent none. */
  readonly currentMileage: number;
}

/** The share of the price (0 to 1) a vehicle is worth at `age`; never more at a higher age. */
export interface DepreciationStrategy {
  valueAt(age: number, usage: Usage): number;
}
