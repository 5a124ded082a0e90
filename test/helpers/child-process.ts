import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { once } from 'node:events';

/** For hooks and tests that start programs: jest's 5 s default is tight on a busy CI machine. */
export const PROCESS_TEST_TIMEOUT_MS = 30_000;

const running = new Set<RunningProcess>();
// If a test run dies half-way, leave no program behind.
process.on('exit', () => running.forEach((child) => child.signal('SIGKILL')));

/** A program a test started (redis-server, the cluster script), with its output kept. */
export class RunningProcess {
  private output = '';
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    const keep = (chunk: Buffer) => (this.output += chunk.toString());
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = once(child, 'exit').then(() => undefined);
    void this.exited.then(() => running.delete(this));
    running.add(this);
  }

  static start(command: string, args: string[], options: SpawnOptions = {}): RunningProcess {
    const child = spawn(command, args, { ...options, stdio: 'pipe' });
    child.on('error', () => undefined); // a missing program shows as an early exit
    return new RunningProcess(child);
  }

  /** Everything the program wrote to stdout and stderr so far. */
  get logs(): string {
    return this.output;
  }

  get hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.hasExited) this.child.kill(signal);
  }

  /** Stops it (SIGTERM, then SIGKILL after `graceMs`) and waits for it to exit. */
  async stop(graceMs = 3_000): Promise<void> {
    if (this.hasExited) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Kills it at once, as a crash would. */
  async kill(): Promise<void> {
    if (this.hasExited) return;
    this.signal('SIGKILL');
    await this.exited;
  }
}
