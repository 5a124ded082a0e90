/**
 * SIGUSR1 opens Node's inspector on 127.0.0.1:9229, through which any local process can run code
 * in this one. The start scripts pass `--disable-sigusr1` (Node then leaves the signal blocked, and
 * it does nothing). Started without it, this listener is the defence: Node's inspector handler is
 * a plain sigaction, and a JS listener's (libuv's) replaces it, so the signal reaches only this
 * function (measured on Node 24.21: no inspector, the process serves on). main.ts imports this
 * module first, before Nest loads (about half a second), so only Node's own start-up is uncovered.
 * Nothing in this module may import anything, or that window grows.
 */
let report: (message: string) => void = () => undefined;

process.on('SIGUSR1', () =>
  report(
    'SIGUSR1 received: ignored (it would open the inspector; start node with --disable-sigusr1)',
  ),
);

/** Where the line about a SIGUSR1 goes, once the application's logger is up. */
export function reportInspectorSignal(to: (message: string) => void): void {
  report = to;
}
