import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { OUT_DIR } from './project';

/** Servers on one core, the load generator on the other (BENCH_SERVER_CPU / BENCH_LOAD_CPU). */
export const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '0';
export const LOAD_CPU = process.env.BENCH_LOAD_CPU ?? '1';

/** Whether `taskset` can pin here: it exists and there are at least two cores. */
export const CAN_PIN =
  availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** The command, run through `taskset -c <cpu>` when pinning is possible (taskset execs it: same pid). */
export const pinned = (cpu: string, command: string[]): string[] =>
  CAN_PIN ? ['taskset', '-c', cpu, ...command] : command;

/** A port that was free a moment ago on 127.0.0.1 (the shared runner's). */
export { freePort } from '../src/testing/processes';

/** The resident set of a process, in bytes (VmRSS of /proc/<pid>/status), or NaN. */
export function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time a process has used so far (user + system), in seconds, or NaN. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on Linux unless `getconf CLK_TCK` says else. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

export interface Running {
  name: string;
  port: number;
  pid: number;
  /** The tail of what the process wrote to stderr (its log file). */
  stderr(): string;
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();

/** Ends every process this run started (on exit or interrupt), each by its own pid. */
export function stopAllOnExit(): void {
  const killAll = () =>
    started.forEach((child) => child.exitCode === null && child.kill('SIGKILL'));
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

async function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts a server process, stdout to /dev/null (no TTY, no pipe to drain), stderr to
 * bench/.out/<name>.stderr.log, and resolves once it accepts connections on `port`.
 */
export async function startProcess(
  name: string,
  command: string[],
  env: Record<string, string>,
  port: number,
): Promise<Running> {
  mkdirSync(OUT_DIR, { recursive: true });
  const logPath = join(OUT_DIR, `${name}.stderr.log`);
  const logFd = openSync(logPath, 'w');
  const child = spawn(command[0], command.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', logFd],
  });
  closeSync(logFd);
  started.add(child);
  const stderr = () => readFileSync(logPath, 'utf8').slice(-2000);
  const deadline = Date.now() + 30_000;
  while (!(await isListening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start (exit ${child.exitCode}):\n${stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    started.delete(child);
  };
  return { name, port, pid: child.pid ?? -1, stderr, stop };
}
