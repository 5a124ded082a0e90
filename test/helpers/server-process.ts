import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { send } from './http';
import { tryConnect } from './raw-http';
import { waitFor } from './wait';

export const MAIN_JS = join(__dirname, '..', '..', 'dist', 'main.js');
const START_TIMEOUT_MS = 20_000;
const HOST = '127.0.0.1';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The built server (`node dist/main.js`) running as a child process on a loopback port. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** stdout and stderr so far, as they came. */
  output(): string;
  /** Everything written to stdout so far (the JSON log lines). */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** stdout split into lines, each parsed as JSON (throws on a line that is not JSON). */
  logLines(): Record<string, unknown>[];
  /** Resolves once the process has ended. */
  readonly exited: Promise<Exit>;
  /** Sends `signal` (SIGTERM by default) if still running, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts `node dist/main.js` (built by `npm test`'s pretest) with `env` on top of this process's
 * environment (LOG_LEVEL warn unless given), on a free port of 127.0.0.1, and resolves once it
 * accepts connections.
 */
export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, HOST, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let all = '';
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((out += chunk), (all += chunk)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((err += chunk), (all += chunk)));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let ended = false;
  void exited.then(() => (ended = true));

  const deadline = Date.now() + START_TIMEOUT_MS;
  while ((await tryConnect(port, HOST)) !== 'connected') {
    if (ended || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not start on port ${port}.\n${all}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    child,
    host: HOST,
    port,
    url: `http://${HOST}:${port}`,
    output: () => all,
    stdout: () => out,
    stderr: () => err,
    logLines: () =>
      out
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}

/** Runs `node dist/main.js` to its end (for start-up failures): its exit code and stderr. */
export async function runToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { ...process.env, HOST, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

/**
 * Waits until the server answers 200 on GET /health/ready, as a load balancer or orchestrator
 * would before sending it traffic (with Redis configured: until its counters are shared).
 * Otherwise kills the server (so no test is left waiting on it) and fails with its output.
 */
export async function untilReady(
  server: ServerProcess,
  timeoutMs = 10_000,
): Promise<ServerProcess> {
  const ready = async () =>
    (await send({ port: server.port, path: '/health/ready' })).status === 200;
  await waitFor(`${server.url}/health/ready`, ready, timeoutMs).catch(async (error: Error) => {
    await server.stop('SIGKILL');
    throw new Error(`${error.message}\n${server.output()}`);
  });
  return server;
}
