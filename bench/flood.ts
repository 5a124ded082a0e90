import { pipeliningFlood } from '../src/testing/pipelining-flood';
import { envNumber, runMain, SERVER_ENV, SERVICE_ARGS, startServer } from './common';

/**
 * What a pipelining flood costs the built service: BENCH_FLOOD_CONNECTIONS (1,000) connections from
 * BENCH_FLOOD_ADDRESSES (40) loopback addresses, each writing BENCH_FLOOD_BYTES (80 KB) of pipelined
 * `GET /health` and never reading, held BENCH_FLOOD_HOLD_MS (3 s). Prints the server's resident
 * memory before and at its peak, the MB per flooding connection, and the slowest `/health/live`
 * another client got meanwhile. `npm run bench:flood`; not part of `npm run bench`.
 */
async function main(): Promise<void> {
  const connections = envNumber('BENCH_FLOOD_CONNECTIONS', 1_000);
  const addresses = envNumber('BENCH_FLOOD_ADDRESSES', 40);
  const bytesEach = envNumber('BENCH_FLOOD_BYTES', 80_000);
  const env = { ...SERVER_ENV, LOG_LEVEL: 'warn', MAX_CONNECTIONS_PER_CLIENT: '32' };
  const { port, process: server } = await startServer(
    'flood',
    [process.execPath, ...SERVICE_ARGS],
    env,
  );
  try {
    const figures = await pipeliningFlood({
      port,
      pid: server.pid,
      connections,
      addresses,
      third: 40,
      bytesEach,
      holdMs: envNumber('BENCH_FLOOD_HOLD_MS', 3_000),
      stopAboveBytes: 2 * 2 ** 30,
    });
    const mb = (bytes: number) => bytes / 2 ** 20;
    const grown = mb(figures.peakBytes - figures.baselineBytes);
    console.log(
      `Node ${process.version}, ${figures.opened} of ${connections} connections from ${addresses} ` +
        `addresses, ${bytesEach} bytes of pipelined GET /health each, never read`,
    );
    console.log(
      `RSS ${mb(figures.baselineBytes).toFixed(0)} MB before, ${mb(figures.peakBytes).toFixed(0)} MB ` +
        `at the peak: +${grown.toFixed(0)} MB, ${(grown / figures.opened).toFixed(3)} MB per ` +
        `flooding connection; slowest /health/live of ${figures.probes}: ` +
        `${figures.slowestProbeMs.toFixed(0)} ms`,
    );
  } finally {
    await server.stop();
  }
}

runMain(main);
