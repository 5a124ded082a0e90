/**
 * The time source. Everything that depends on the UTC day (the daily limit, the current year)
 * asks this provider, so a test overrides it (`overrideProvider(Clock)`) to cross midnight.
 */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
