import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

/** The built server (`node dist/main.js`) running as a child process on a loopback port. */
export interface BuiltServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** What the process printed so far (stdout and stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Starts the built server with `env` on top of this process's environment, on 127.0.0.1 and a
 * free port, and resolves once it accepts connections (Nest listens only after its init). Needs
 * `npm run build` first (`npm test` runs it as the pretest script).
 */
export async function startBuiltServer(
  env: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<BuiltServer> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first`);
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };

  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`The server exited early:\n${printed}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The server did not listen within ${timeoutMs} ms:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${port}`, port, process: child, output: () => printed, stop };
}
