import { spawnSync } from 'node:child_process';
import { BENCH_JS, LARGEST_BODY, MAIN_JS, README_BODY, ROUTE } from './project';
import { freePort, pinned, Running, SERVER_CPU, startProcess } from './processes';

/** Never reached by the load: the service counts every request but never refuses one. */
export const NO_LIMIT = 1_000_000_000;

/** One server process under test. */
export interface Target {
  name: string;
  command: string[];
  env: Record<string, string>;
  /** The limit the target was given (for the 429 body). */
  rateLimit: number;
  /** Start a fresh process before each round (see the peer in RESULTS.md's notes). */
  restartEachRound?: boolean;
  running?: Running;
}

/** One line of the table: a target under one workload, answering one status. */
export interface Row {
  label: string;
  target: Target;
  workload: 'readme' | 'largest';
  body: object;
  status: number;
  /** Why the row has no figures, or why they cannot be trusted. */
  problem?: string;
}

/** The environment of every target: loopback only, production mode, stdout not a TTY. */
export const commonEnv = (): Record<string, string> => ({
  HOST: '127.0.0.1',
  // Several services run at once: each takes a free management port for its /metrics.
  METRICS_PORT: '0',
  // The load generator is one address with BENCH_CONNECTIONS (50) connections: above the default
  // per-client cap of 32, which is for the public, not for a benchmark.
  MAX_CONNECTIONS_PER_CLIENT: '1000',
  NODE_ENV: 'production',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
});

const service = (name: string, rateLimit: number, env: Record<string, string> = {}): Target => ({
  name,
  command: [process.execPath, MAIN_JS],
  env: { ...commonEnv(), RATE_LIMIT_PER_DAY: String(rateLimit), ...env },
  rateLimit,
});

const benchServer = (name: string, restartEachRound = false, script = name): Target => ({
  name,
  command: [process.execPath, BENCH_JS(script)],
  env: commonEnv(),
  rateLimit: NO_LIMIT,
  restartEachRound,
});

/**
 * The peer without its throttler (a bare Nest app with a ValidationPipe): what Nest itself costs,
 * and what the stock throttler adds. BENCH_PEER_BARE=0 leaves it out (about 40 s less).
 */
const withBarePeer = process.env.BENCH_PEER_BARE !== '0';

/**
 * BENCH_COMPARE_NODE=/path/to/node also runs the same build of the service on that Node binary (for
 * example the machine's own, `/usr/bin/node`), to show what the pinned runtime buys in one run.
 */
export const COMPARE_NODE = process.env.BENCH_COMPARE_NODE || undefined;

/** The version a Node binary reports, or why it cannot be run. */
export function nodeVersion(binary: string): string {
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(
      `BENCH_COMPARE_NODE=${binary} does not run: ${run.error?.message ?? run.stderr}`,
    );
  return run.stdout.trim();
}

export function defineTargets(redisUrl: string | undefined) {
  return {
    service: service('service', NO_LIMIT),
    otherNode: COMPARE_NODE
      ? { ...service('service-other-node', NO_LIMIT), command: [COMPARE_NODE, MAIN_JS] }
      : undefined,
    redis: redisUrl
      ? service('service-redis', NO_LIMIT, { RATE_LIMIT_STORE: 'redis', REDIS_URL: redisUrl })
      : undefined,
    refusing: service('service-429', 1),
    peer: benchServer('peer', true),
    barePeer: withBarePeer
      ? {
          ...benchServer('peer-bare', false, 'peer'),
          env: { ...commonEnv(), PEER_THROTTLER: 'off' },
        }
      : undefined,
    express: benchServer('express-ceiling'),
    http: benchServer('http-ceiling'),
  };
}

export type Targets = ReturnType<typeof defineTargets>;

/** The table's rows, in the order they alternate in each round. */
export function defineRows(t: Targets): Row[] {
  const readme = (label: string, target: Target, status = 200): Row => ({
    label,
    target,
    workload: 'readme',
    body: README_BODY,
    status,
  });
  const largest = (label: string, target: Target): Row => ({
    label,
    target,
    workload: 'largest',
    body: LARGEST_BODY,
    status: 200,
  });
  return [
    readme('service (in-memory store)', t.service),
    ...(t.otherNode && COMPARE_NODE
      ? [readme(`the same service on Node ${nodeVersion(COMPARE_NODE)}`, t.otherNode)]
      : []),
    ...(t.redis ? [readme('service (Redis store)', t.redis)] : []),
    readme('peer: Nest + ValidationPipe + stock throttler', t.peer),
    ...(t.barePeer
      ? [readme('peer without its throttler (Nest + ValidationPipe)', t.barePeer)]
      : []),
    readme('Express 5 ceiling', t.express),
    readme('node:http ceiling', t.http),
    readme('service, 429 path (over its limit)', t.refusing, 429),
    largest('service, largest answer', t.service),
    largest('Express 5 ceiling, largest answer', t.express),
    largest('node:http ceiling, largest answer', t.http),
  ];
}

export const urlOf = (target: Target): string =>
  `http://127.0.0.1:${target.running?.port ?? 0}${ROUTE}`;

/** Starts the target's process, pinned to the server core, on a free loopback port. */
export async function startTarget(target: Target): Promise<void> {
  const port = await freePort();
  const command = pinned(SERVER_CPU, target.command);
  target.running = await startProcess(
    target.name,
    command,
    { ...target.env, PORT: String(port) },
    port,
  );
}
