import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { AddressInfo, connect, createServer } from 'node:net';
import { Readable } from 'node:stream';

/**
 * Starting a program, waiting for its port (or any readiness), stopping it and keeping its output:
 * the one process runner of the e2e tests (src/testing/server-process.ts, redis-server.ts), the
 * unit specs, the bench (bench/) and `npm run cluster` (scripts/cluster.js, which loads it from
 * dist-tools/, where `npm run build:tools` compiles it). Node's own modules only.
 */

/** For hooks and tests that start programs: jest's 5 s default is tight on a busy CI machine. */
export const PROCESS_TEST_TIMEOUT_MS = 30_000;

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it answers true, or fails after `timeoutMs` with `what` in the message.
 * A rejection of `check` fails at once (e.g. the program being waited for has exited).
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 5_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A port that was free a moment ago on `host`. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * The Node flags `npm run start:prod` starts the built server with (the package.json at
 * `manifest`), e.g. `--disable-sigusr1`: the tests and `npm run cluster` start it as operators do.
 */
export function serverNodeFlags(manifest: string): string[] {
  const { scripts } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = scripts['start:prod'] ?? '';
  const [node, ...flags] = script.trim().split(/\s+/);
  const main = flags.pop();
  if (node !== 'node' || main !== 'dist/main.js' || !flags.every((flag) => flag.startsWith('--')))
    throw new Error(`start:prod in ${manifest} is not "node [--flag ...] dist/main.js": ${script}`);
  return flags;
}

/** Whether something accepts a TCP connection on host:port now. */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Where a program's stdout or stderr goes: kept in memory (the default), dropped, written to this
 * process's own stream with `[name] ` before each line (kept nowhere), or (stderr) to a file.
 */
type Sink = 'keep' | 'ignore' | 'echo';

interface StartOptions extends Omit<SpawnOptions, 'stdio'> {
  /** Its name in failure messages and echoed lines; the command by default. */
  name?: string;
  stdout?: Sink;
  stderr?: Sink | { file: string };
}

const running = new Set<RunningProcess>();
// If this process ends half-way (a failed test run, an interrupted bench), leave no program behind.
process.on('exit', () => running.forEach((child) => child.signal('SIGKILL')));

/** A program started by a test, the bench or the cluster script, with its output kept. */
export class RunningProcess {
  /** Resolves once the program has ended and its output is all read: its exit code or signal. */
  readonly exited: Promise<Exit>;
  readonly name: string;
  private readonly child: ChildProcess;
  private readonly stderrFile?: string;
  private all = '';
  private out = '';
  private err = '';

  protected constructor(command: string, args: string[], options: StartOptions = {}) {
    const { name = command, stdout = 'keep', stderr = 'keep', ...spawnOptions } = options;
    this.name = name;
    this.stderrFile = typeof stderr === 'object' ? stderr.file : undefined;
    const fd = this.stderrFile === undefined ? undefined : openSync(this.stderrFile, 'w');
    const stdio = (sink: Sink) => (sink === 'ignore' ? 'ignore' : 'pipe');
    const errStdio = fd ?? stdio(stderr as Sink);
    this.child = spawn(command, args, {
      ...spawnOptions,
      stdio: ['ignore', stdio(stdout), errStdio],
    });
    if (fd !== undefined) closeSync(fd);
    // A missing program shows as an early exit, with spawn's error in its stderr.
    this.child.on('error', (error) => this.take(`${error.message}\n`, 'keep', false));
    this.read(this.child.stdout, stdout, true);
    if (fd === undefined) this.read(this.child.stderr, stderr as Sink, false);
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

  static start(command: string, args: string[], options: StartOptions = {}): RunningProcess {
    return new RunningProcess(command, args, options);
  }

  private read(stream: Readable | null, sink: Sink, isStdout: boolean): void {
    stream?.setEncoding('utf8').on('data', (chunk: string) => this.take(chunk, sink, isStdout));
  }

  private take(chunk: string, sink: Sink, isStdout: boolean): void {
    if (sink === 'echo') {
      const lines = chunk.split('\n').filter((line) => line.trim() !== '');
      const prefixed = lines.map((line) => `[${this.name}] ${line}\n`).join('');
      (isStdout ? process.stdout : process.stderr).write(prefixed);
      return;
    }
    if (isStdout) this.out += chunk;
    else this.err += chunk;
    this.all += chunk;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** stdout and stderr so far, as they came (stderr's file after what was kept). */
  get output(): string {
    return this.stderrFile === undefined ? this.all : `${this.all}${this.stderr}`;
  }

  /** Everything written to stdout so far. */
  get stdout(): string {
    return this.out;
  }

  /** Everything written to stderr so far (the last 4,000 characters of its file, if it has one). */
  get stderr(): string {
    if (this.stderrFile === undefined) return this.err;
    try {
      return this.err + readFileSync(this.stderrFile, 'utf8').slice(-4_000);
    } catch {
      return this.err;
    }
  }

  /**
   * Stops reading its stdout, as a stalled log collector does: the pipe fills and what the program
   * writes there waits; `resumeStdout` reads it again.
   */
  pauseStdout(): void {
    this.child.stdout?.pause();
  }

  resumeStdout(): void {
    this.child.stdout?.resume();
  }

  /** Closes this end of its stdout pipe, as a log reader that went away: its writes fail (EPIPE). */
  closeStdout(): void {
    this.child.stdout?.destroy();
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

  /**
   * Waits until `check` answers true. Should the program exit first, or `timeoutMs` pass, stops
   * it (SIGTERM first: a script can stop what it started) and fails with its output.
   */
  async until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const whileRunning = async () => {
      if (this.hasExited) throw new Error(`Gave up waiting for ${what}: ${this.name} exited`);
      return check();
    };
    await waitFor(what, whileRunning, timeoutMs).catch(async (error: Error) => {
      await this.stop();
      throw new Error(`${error.message}\n${this.output}`);
    });
  }

  /** Waits until it accepts connections on host:port (see `until`). */
  untilListening(port: number, host = '127.0.0.1', timeoutMs?: number): Promise<void> {
    const what = `${this.name} to listen on ${host}:${port}`;
    return this.until(what, () => accepts(port, host), timeoutMs);
  }
}
