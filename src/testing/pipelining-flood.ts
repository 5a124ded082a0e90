import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { sleep } from './processes';

/**
 * A pipelining flood against a running server: connections from many
 * loopback addresses, each writing pipelined `GET /health` requests and never reading, while the
 * server's resident memory is sampled and another client asks `/health/live`. The e2e test
 * (test/pipelining-flood.e2e-spec.ts) holds it to a bound; `npm run bench:flood` prints its figures.
 */
interface FloodOptions {
  port: number;
  /** The server's process id: its VmRSS is read from /proc. */
  pid: number;
  connections: number;
  /** The N of 127.0.<third>.N the connections come from, one after the other in turn. */
  addresses: number;
  third: number;
  /** Bytes of pipelined requests each connection writes. */
  bytesEach: number;
  /** How long the connections are held once all are open. */
  holdMs: number;
  /** Past this much growth the flood stops opening connections (an old server could take GBs). */
  stopAboveBytes: number;
}

interface FloodFigures {
  baselineBytes: number;
  peakBytes: number;
  /** Connections opened before the flood stopped (all of them, unless it stopped early). */
  opened: number;
  /** The slowest `/health/live` answer from another address during the flood, in ms. */
  slowestProbeMs: number;
  probes: number;
}

const FLOOD_REQUEST = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const BATCH = 50;
const SAMPLE_EVERY_MS = 50;
/** A probe not answered within this is counted as this slow. */
const PROBE_TIMEOUT_MS = 10_000;

/** A process's resident set in bytes (VmRSS), or NaN once it has gone. */
function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
  } catch {
    return NaN;
  }
}

/**
 * The time one `GET /health/live` takes from `localAddress`, on `agent`'s keep-alive connection
 * (opened before the flood): the server's answering, not the kernel's accept queue, which a burst
 * of new connections can overflow (a dropped SYN is sent again after 1 s).
 */
function probe(port: number, localAddress: string, agent: Agent): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    const done = () => resolve(performance.now() - start);
    const ask = request({ port, path: '/health/live', localAddress, agent }, (answer) =>
      answer.resume().once('end', done),
    );
    ask.setTimeout(PROBE_TIMEOUT_MS, () => ask.destroy());
    ask.once('error', done).end();
  });
}

/** One flooding connection: it writes `payload` and never reads; resolves once connected. */
function flooder(port: number, localAddress: string, payload: Buffer): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    socket.on('error', () => undefined); // the server closing it is expected
    socket.once('connect', () => {
      socket.write(payload);
      resolve(socket);
    });
    socket.once('close', () => resolve(socket));
  });
}

/** Runs the flood; every socket it opened is destroyed before it resolves. */
export async function pipeliningFlood(options: FloodOptions): Promise<FloodFigures> {
  const { port, pid, connections, addresses, third } = options;
  const payload = Buffer.from(
    FLOOD_REQUEST.repeat(Math.ceil(options.bytesEach / FLOOD_REQUEST.length)),
  );
  const baselineBytes = residentBytes(pid);
  const figures = { baselineBytes, peakBytes: baselineBytes, opened: 0, slowestProbeMs: 0 };
  const tooBig = () => figures.peakBytes - baselineBytes > options.stopAboveBytes;
  const sampler = setInterval(() => {
    figures.peakBytes = Math.max(figures.peakBytes, residentBytes(pid));
  }, SAMPLE_EVERY_MS);
  let flooding = true;
  let probes = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  await probe(port, `127.0.${third}.250`, agent);
  const probing = (async () => {
    while (flooding) {
      const ms = await probe(port, `127.0.${third}.250`, agent);
      figures.slowestProbeMs = Math.max(figures.slowestProbeMs, ms);
      probes += 1;
      // A fixed pace, not a wait for a state: the probe samples the service's latency meanwhile.
      await sleep(100);
    }
  })();
  const sockets: Socket[] = [];
  try {
    while (sockets.length < connections && !tooBig()) {
      const batch = Array.from({ length: Math.min(BATCH, connections - sockets.length) }, (_, i) =>
        flooder(port, `127.0.${third}.${((sockets.length + i) % addresses) + 1}`, payload),
      );
      sockets.push(...(await Promise.all(batch)));
    }
    figures.opened = sockets.length;
    const until = performance.now() + options.holdMs;
    while (performance.now() < until && !tooBig()) await sleep(SAMPLE_EVERY_MS);
  } finally {
    flooding = false;
    clearInterval(sampler);
    sockets.forEach((socket) => socket.destroy());
    await probing;
    agent.destroy();
  }
  return { ...figures, probes };
}
