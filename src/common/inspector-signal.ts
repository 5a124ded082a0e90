/**
 * SIGUSR1 would open the inspector, through which any local process can run code in this one.
 * Without `--disable-sigusr1`, this JS listener replaces Node's handler (Node 24.21). main.ts
 * imports this first: it must import nothing, or the uncovered start-up window grows.
 */
process.on('SIGUSR1', () => undefined);

const IGNORED =
  'SIGUSR1 received: ignored (it would open the inspector; start node with --disable-sigusr1)';

/** Says so on each SIGUSR1 from now on, once the application's logger is up. */
export function reportInspectorSignal(to: (message: string) => void): void {
  process.on('SIGUSR1', () => to(IGNORED));
}
