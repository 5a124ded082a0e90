/**
 * Something the operator or the team must change (a setting, a decorator's use): main.ts prints the
 * message alone and exits 1. Any other start-up failure is printed with its stack.
 */
export class StartupRefusal extends Error {}
