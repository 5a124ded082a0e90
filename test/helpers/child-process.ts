import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';

/** For hooks and tests that start programs: jest's 5 s default is tight on a busy CI machine. */
export const PROCESS_TEST_TIMEOUT_MS = 30_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const running = new Set<RunningProcess>();
// If a test run dies half-way, leave no program behind.
process.on('exit', () => running.forEach((child) => child.signal('SIGKILL')));

/**
 * A program a test started (redis-server, the cluster script, the built server: ServerProcess,
 * test/helpers/server-process.ts), with its output kept.
 */
export class RunningProcess {
  /** Resolves once the program has ended and its output is all read: its exit code or signal. */
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;
  private all = '';
  private out = '';
  private err = '';

  protected constructor(command: string, args: string[], options: SpawnOptions = {}) {
    this.child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.on('error', () => undefined); // a missing program shows as an early exit
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.out += chunk;
      this.all += chunk;
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.err += chunk;
      this.all += chunk;
    });
    // 'close', not 'exit': it comes once stdout and stderr are read to their end, and also when
    // the program could not be started at all (no 'exit' then).
    this.exited = new Promise((resolve) =>
      this.child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        running.delete(this);
        resolve({ code, signal });
      }),
    );
    running.add(this);
  }

  static start(command: string, args: string[], options: SpawnOptions = {}): RunningProcess {
    return new RunningProcess(command, args, options);
  }

  /** stdout and stderr so far, as they came. */
  get output(): string {
    return this.all;
  }

  /** Everything written to stdout so far. */
  get stdout(): string {
    return this.out;
  }

  /** Everything written to stderr so far. */
  get stderr(): string {
    return this.err;
  }

  get hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.hasExited) this.child.kill(signal);
  }

  /** Stops it (SIGTERM, then SIGKILL after `graceMs`) and waits for it to end. */
  async stop(graceMs = 3_000): Promise<Exit> {
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  /** Kills it at once, as a crash would, and waits for it to end. */
  async kill(): Promise<Exit> {
    this.signal('SIGKILL');
    return this.exited;
  }
}
