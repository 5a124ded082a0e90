import { join } from 'node:path';
import { freePort, RunningProcess, serverNodeFlags, waitFor } from './processes';
import { health } from './daily-limit';
import { send } from './http';

export const MAIN_JS = join(__dirname, '..', '..', 'dist', 'main.js');
/** The flags `npm start` gives Node (package.json's start:prod), e.g. --disable-sigusr1. */
export const NODE_FLAGS = serverNodeFlags(join(__dirname, '..', '..', 'package.json'));
const START_TIMEOUT_MS = 20_000;
const HOST = '127.0.0.1';

interface ServerOptions {
  /** Run it under this limit on open file descriptors (prlimit, util-linux). */
  descriptors?: number;
  /** Node's flags before dist/main.js; those of `npm start` (NODE_FLAGS) unless given. */
  nodeFlags?: string[];
}

/** The built server (`node dist/main.js`) running as a child process on a loopback port. */
export class ServerProcess extends RunningProcess {
  readonly host = HOST;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;

  /** Use startServer, which waits until it accepts connections. */
  constructor(
    readonly port: number,
    /** The management port, where GET /metrics is served. */
    readonly metricsPort: number,
    env: Record<string, string>,
    { descriptors, nodeFlags = NODE_FLAGS }: ServerOptions = {},
  ) {
    const node = [process.execPath, ...nodeFlags, MAIN_JS];
    const limited = descriptors ? ['prlimit', `--nofile=${descriptors}:${descriptors}`, '--'] : [];
    const [command, ...args] = [...limited, ...node];
    super(command, args, {
      name: 'the server',
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        ...env,
        HOST,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
      },
    });
    this.url = `http://${HOST}:${port}`;
  }

  /** GET /metrics on its management port. */
  async metrics(): Promise<string> {
    return (await send({ port: this.metricsPort, path: '/metrics' })).text;
  }

  /** Its resident memory in bytes, as its own metrics report it. */
  async residentMemory(): Promise<number> {
    return Number(/^process_resident_memory_bytes (\d+)/m.exec(await this.metrics())?.[1]);
  }

  /**
   * The sockets it holds open, as Node's own gauge counts them (`nodejs_active_handles{type="Socket"}`
   * on the metrics port): every connection it has accepted on either port, the scrape that asks
   * included, plus its stdout and stderr and any Redis connection. A connection the client sees
   * established may still wait in the kernel's backlog: this says when the server has taken it.
   */
  async openSockets(): Promise<number> {
    return Number(/^nodejs_active_handles\{type="Socket"\} (\d+)/m.exec(await this.metrics())?.[1]);
  }

  /** Waits until its open sockets satisfy `done` (see openSockets). */
  untilSockets(what: string, done: (sockets: number) => boolean): Promise<void> {
    return waitFor(what, async () => done(await this.openSockets()), 10_000, 20);
  }

  /** How many lines of its output contain `text`. */
  linesWith(text: string): number {
    return this.output.split('\n').filter((line) => line.includes(text)).length;
  }

  /** stdout split into lines, each parsed as JSON (throws on a line that is not JSON). */
  logLines(): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/**
 * Starts `node dist/main.js` (built by `npm test`'s pretest) with `env` on top of this process's
 * environment (LOG_LEVEL warn unless given), on a free port of 127.0.0.1, and resolves once it
 * accepts connections.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: ServerOptions = {},
): Promise<ServerProcess> {
  const port = await freePort(HOST);
  let metricsPort = await freePort(HOST);
  while (metricsPort === port) metricsPort = await freePort(HOST);
  const server = new ServerProcess(port, metricsPort, env, options);
  await server.untilListening(port, HOST, START_TIMEOUT_MS);
  return server;
}

/**
 * Runs `node dist/main.js` to its end (for start-up failures): its exit code, stdout and stderr.
 * A server that starts instead is stopped (SIGTERM) after START_TIMEOUT_MS. `within`: a command
 * it runs under (e.g. ISOLATED_NETWORK).
 */
export async function runToExit(
  env: Record<string, string>,
  { within = [] }: { within?: string[] } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, ...args] = [...within, process.execPath, ...NODE_FLAGS, MAIN_JS];
  const run = RunningProcess.start(command, args, {
    env: { ...process.env, HOST, ...env },
  });
  const timer = setTimeout(() => void run.stop(), START_TIMEOUT_MS);
  const { code } = await run.exited;
  clearTimeout(timer);
  return { code, stdout: run.stdout, stderr: run.stderr };
}

/**
 * Waits until the server answers 200 on GET /health/ready, as a load balancer or orchestrator
 * would before sending it traffic. Otherwise kills the server (so no test is left waiting on it)
 * and fails with its output.
 */
export async function untilReady(
  server: ServerProcess,
  timeoutMs = 10_000,
): Promise<ServerProcess> {
  const ready = async () =>
    (await send({ port: server.port, path: '/health/ready' })).status === 200;
  await server.until(`${server.url}/health/ready`, ready, timeoutMs);
  return server;
}

/** Whether GET /health says `ok`: with Redis configured, its counters are shared. */
export const isShared = async (server: ServerProcess): Promise<boolean> =>
  ((await health(server.port)) as { status?: string }).status === 'ok';

/**
 * Waits until the server is ready and its counters are shared (a degraded instance is ready too),
 * as a test of shared counting needs; otherwise kills it and fails with its output.
 */
export async function untilShared(server: ServerProcess): Promise<ServerProcess> {
  await untilReady(server);
  await server.until(`${server.url} to share its counters`, () => isShared(server), 5_000);
  return server;
}
