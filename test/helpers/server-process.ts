import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { AddressInfo, createServer, connect } from 'node:net';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
const START_TIMEOUT_MS = 20_000;

/** The built server (`node dist/main.js`) running as a child process on a loopback port. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly host: string;
  readonly port: number;
  readonly baseUrl: string;
  /** Everything written to stdout so far (the JSON log lines). */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** stdout split into lines, each parsed as JSON (throws on a line that is not JSON). */
  logLines(): Record<string, unknown>[];
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGTERM (if still running) and waits for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A port that was free a moment ago on `host`. */
async function freePort(host: string): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `node dist/main.js` (built by `npm test`'s pretest) with `env` on top of this process's
 * environment, on a free port of 127.0.0.1, and resolves once it accepts connections.
 */
export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const host = '127.0.0.1';
  const port = await freePort(host);
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, ...env, HOST: host, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let ended = false;
  void exited.then(() => (ended = true));

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await canConnect(host, port))) {
    if (ended || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not start on port ${port}.\nstdout: ${out}\nstderr: ${err}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    child,
    host,
    port,
    baseUrl: `http://${host}:${port}`,
    stdout: () => out,
    stderr: () => err,
    logLines: () =>
      out
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    stop: async () => {
      if (!ended) child.kill('SIGTERM');
      return exited;
    },
  };
}
