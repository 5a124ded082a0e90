import { Clock } from '../common/clock';

/**
 * A clock a test sets by hand (`set(iso)`): override `Clock` with it (createTestApp's `clock`
 * option) or hand it to a store, to cross midnight or the new year without fake timers.
 */
export class SettableClock extends Clock {
  private current: number;

  constructor(iso: string) {
    super();
    this.current = SettableClock.parse(iso);
  }

  now(): Date {
    return new Date(this.current);
  }

  set(iso: string): void {
    this.current = SettableClock.parse(iso);
  }

  private static parse(iso: string): number {
    const time = Date.parse(iso);
    if (Number.isNaN(time)) throw new Error(`Not a date: ${iso}`);
    return time;
  }
}
