import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Redis from 'ioredis';
import { SystemClock } from '../src/common/clock';
import { DepreciationService } from '../src/depreciation/depreciation.service';
import { rateLimitMessage } from '../src/common/error-messages';
import { freePort, RunningProcess, serverNodeFlags, waitFor } from '../src/testing/processes';
import { README_EXAMPLE_REQUEST } from '../src/testing/readme-example';

/** What the bench's programs share. This file runs as dist-bench/bench/common.js. */
export const ROOT = resolve(__dirname, '..', '..');
export const MAIN_JS = join(ROOT, 'dist', 'main.js');
/** Node's arguments for the service as `npm start` (package.json's start:prod) and the image run it. */
export const SERVICE_FLAGS = serverNodeFlags(join(ROOT, 'package.json'));
export const SERVICE_ARGS = [...SERVICE_FLAGS, MAIN_JS];
export const OUT_DIR = join(ROOT, 'bench', '.out');
export const benchJs = (name: string) => join(__dirname, `${name}.js`);
export const ROUTE = '/api/depreciate';
/** The README's example (a 2020 sedan, seven entries); the largest answer (a year each since 1900),
 * and the same with the longest projection (ten more entries). */
export const README_BODY = README_EXAMPLE_REQUEST;
export const LARGEST_BODY = { ...README_BODY, purchaseYear: 1900 };
export const PROJECTED_BODY = { ...LARGEST_BODY, projectionYears: 10 };
/** Every server under test: loopback, production, and 50 connections from one address allowed. */
export const SERVER_ENV = {
  HOST: '127.0.0.1',
  METRICS_PORT: '0', // several services at once, each with a management port of its own
  MAX_CONNECTIONS_PER_CLIENT: '1000',
  NODE_ENV: 'production',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
};

export function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] || fallback);
  if (!(value >= 0)) throw new Error(`${name}=${process.env[name]} is not a number >= 0`);
  return value;
}

/** Runs `main` (a rejection ends the process, code 1); an interrupt exits, so that the runner kills
 * every process it started. */
export function runMain(main: () => Promise<void>): void {
  ['SIGINT', 'SIGTERM'].forEach((signal) => process.on(signal, () => process.exit(130)));
  void main();
}

/** A run's log: each line prefixed with its name and the seconds since the log was made. */
export function runLog(name: string): (line: string) => void {
  const started = Date.now();
  return (line) => {
    const seconds = ((Date.now() - started) / 1000).toFixed(0).padStart(3);
    console.log(`[${name} ${seconds} s] ${line}`);
  };
}

/** `items` in round `n`'s order: turned by `n` places, so that each round starts one further on. */
export function turned<T>(items: readonly T[], n: number): T[] {
  const shift = n % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** Servers (and redis-server) on one core, the load generator on the other, if taskset can pin. */
export const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '0';
export const LOAD_CPU = process.env.BENCH_LOAD_CPU ?? '1';
export const CAN_PIN =
  availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
/** taskset execs the command: the same pid. */
export const pinned = (cpu: string, command: string[]) =>
  CAN_PIN ? ['taskset', '-c', cpu, ...command] : command;

export type Server = Awaited<ReturnType<typeof launch>>;
/**
 * A server on a free loopback port (its PORT, or `$PORT` in its arguments), pinned, stdout
 * dropped, stderr in bench/.out/<name>.stderr.log; not waited for.
 */
async function launch(name: string, command: string[], env = {}, cpu = SERVER_CPU) {
  mkdirSync(OUT_DIR, { recursive: true });
  const port = await freePort();
  const [program, ...args] = pinned(cpu, command).map((a) => (a === '$PORT' ? `${port}` : a));
  const child = RunningProcess.start(program, args, {
    name,
    env: { ...process.env, ...env, PORT: String(port) },
    stdout: 'ignore',
    stderr: { file: join(OUT_DIR, `${name}.stderr.log`) },
  });
  return { port, process: child };
}

/** A server as `launch` starts it, once it accepts connections. */
export async function startServer(name: string, command: string[], env = {}, cpu = SERVER_CPU) {
  const server = await launch(name, command, env, cpu);
  await server.process.untilListening(server.port, '127.0.0.1', 30_000);
  return server;
}

/**
 * A server as `launch` starts it, once it gave its first right answer to the README's body (polled
 * every 2 ms, a refused connection being no answer yet), and the seconds from spawn to that answer.
 */
export async function untilFirstAnswer(name: string, command: string[], env = {}) {
  const started = performance.now();
  const server = await launch(name, command, env);
  const url = `http://127.0.0.1:${server.port}${ROUTE}`;
  const answered = async () => {
    if (server.process.hasExited) throw new Error(`${name} exited before answering`);
    const problem = await checkAnswer(url, README_BODY, 200, 0).catch(() => false as const);
    if (problem) throw new Error(`${name}'s first answer: ${problem}`);
    return problem === undefined;
  };
  try {
    await waitFor(`${name}'s first answer`, answered, 30_000, 2);
  } catch (error) {
    await server.process.stop(5_000);
    throw error;
  }
  return { server, seconds: (performance.now() - started) / 1000 };
}

/** Seconds from spawning a server to its first right answer; the server is stopped after it. */
export async function firstAnswerSeconds(name: string, command: string[], env = {}) {
  const { server, seconds } = await untilFirstAnswer(name, command, env);
  await server.process.stop(5_000);
  return seconds;
}

/** A throw-away redis-server (no persistence), or undefined without redis-server on PATH. */
export async function startRedis(): Promise<Server | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const args = ['--port', '$PORT', '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const cpu = process.env.BENCH_REDIS_CPU ?? SERVER_CPU;
  return startServer('redis-server', ['redis-server', ...args, '--dir', OUT_DIR], {}, cpu);
}

/** Commands Redis has run so far (INFO stats): the proof that a service counts there. */
export async function redisCommands(port: number): Promise<number> {
  const redis = new Redis(port, '127.0.0.1');
  const info = await redis.info('stats').finally(() => redis.disconnect());
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1]);
}

/** A process's resident set (bytes) and CPU time so far (user + system, s) from /proc, or NaN. */
const proc = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};
const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;
export const rssBytes = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(proc(pid, 'status'))?.[1] ?? NaN) * 1024;
export function cpuSeconds(pid: number): number {
  const stat = proc(pid, 'stat'); // utime and stime: the 12th and 13th fields after the name
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat ? (Number(fields[11]) + Number(fields[12])) / TICKS : NaN;
}

const service = new DepreciationService(new SystemClock());
/**
 * One request, the whole answer checked: status, a JSON Content-Type, and the body the service
 * computes (calculatedAt: any ISO instant) or the contract's 429 body. Undefined when right.
 */
export async function checkAnswer(url: string, body: object, status: number, limit: number) {
  const headers = { 'content-type': 'application/json' };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const [text, type] = [await response.text(), response.headers.get('content-type') ?? ''];
  if (response.status !== status) return `answered ${response.status}: ${text.slice(0, 160)}`;
  if (!type.startsWith('application/json')) return `answered Content-Type "${type}"`;
  let wanted: object = { statusCode: 429, message: rateLimitMessage(limit) };
  if (status !== 429) {
    const calculated = service.calculate(body as Parameters<typeof service.calculate>[0]);
    const at = /"calculatedAt":"(\d{4}(-\d\d){2}T(\d\d:){2}\d\d\.\d{3}Z)"/.exec(text)?.[1];
    wanted = { ...calculated, meta: { ...calculated.meta, calculatedAt: at } };
  }
  const answer: unknown = await new Response(text).json().catch(() => text);
  if (!isDeepStrictEqual(answer, wanted)) return `answered another body: ${text.slice(0, 160)}`;
}
