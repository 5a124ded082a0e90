/** Kept for the e2e suites' imports: the settable clock is part of src/testing (for teams' tests too). */
export { SettableClock } from '../../src/testing/settable-clock';
