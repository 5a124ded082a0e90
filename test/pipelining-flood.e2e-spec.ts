import { readFileSync } from 'node:fs';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { pipeliningFlood } from '../src/testing/pipelining-flood';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { describeWithTools } from '../src/testing/system-tools';

const CONNECTIONS = 1_000;
const MB = 2 ** 20;
/** The server's descriptors: the flood's 1,000 connections, and MAX_CONNECTIONS (90 %) above them. */
const SERVER_DESCRIPTORS = 4_096;

/** This process's soft limit on open descriptors: it opens the flood's connections itself. */
function ownDescriptorLimit(): number {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  return Number(/^Max open files\s+(\d+)/m.exec(limits)?.[1]);
}

/**
 * The pipelining flood against the built server: 1,000 connections from 40 loopback
 * addresses (25 each, within MAX_CONNECTIONS_PER_CLIENT), each writing 80 KB of pipelined
 * `GET /health` (about 1,950 requests, more than one 64 KiB read) and never reading, held 3 s, with
 * the server's VmRSS sampled every 50 ms and another address asking `/health/live` meanwhile.
 */
describeWithTools(['prlimit'], 'a pipelining flood from many addresses (built server)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    const own = ownDescriptorLimit();
    if (own < CONNECTIONS + 200) {
      throw new Error(
        `This test opens ${CONNECTIONS} connections: run it with ulimit -n 1200 or more (${own})`,
      );
    }
    server = await startServer({}, { descriptors: SERVER_DESCRIPTORS });
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it(
    'adds at most 300 MB to the resident memory, and serves another client within 2 s',
    async () => {
      const figures = await pipeliningFlood({
        port: server.port,
        pid: server.pid,
        connections: CONNECTIONS,
        addresses: 40,
        third: 31,
        bytesEach: 80_000,
        holdMs: 3_000,
        // Stops flooding past the bound: the code before took +644 MB and more as it went on.
        stopAboveBytes: 300 * MB,
      });
      // Measured: +113 to +156 MB (0.11 to 0.16 MB per flooding connection); before, +644 MB.
      expect(figures.peakBytes - figures.baselineBytes).toBeLessThan(300 * MB);
      expect(figures.opened).toBe(CONNECTIONS);
      expect(figures.probes).toBeGreaterThan(0);
      // Measured: 1.3 to 1.9 s on a busy two-core machine; before, 12 s.
      expect(figures.slowestProbeMs).toBeLessThan(2_000);
      expect(server.hasExited).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
