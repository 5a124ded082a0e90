/**
 * Start-up stops on something the operator or the team that extends the service must change (a
 * setting, the code's use of a decorator): main.ts prints the message alone, one line, and exits 1.
 * Any other failure is unexpected and printed with its stack.
 */
export class StartupRefusal extends Error {}
