/** Everything that depends on the UTC day asks this provider, so a test can cross midnight. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
