import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export const MAIN_JS = join(__dirname, '..', '..', 'dist', 'main.js');

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface ServerProcess {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Resolves once something accepts TCP connections on the port. */
async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`server did not listen on ${port} within ${timeoutMs} ms`);
}

/**
 * Starts the built server (`node dist/main.js`, built by `npm test`'s pretest) with the given
 * environment on a free loopback port, and waits until it listens.
 */
export async function startServer(
  env: Record<string, string> = {},
  command: string[] = [process.execPath, MAIN_JS],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(command[0], command.slice(1), {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await waitForPort(port, child, 15_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      // A server that died by a signal (as Nest's shutdown hooks end it) has no exit code.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

/** Runs `node dist/main.js` to its end (for start-up failures): its exit code and output. */
export async function runToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { ...process.env, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}
