import { accepts, PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { keepAliveAgent, send } from '../src/testing/http';
import { ServerProcess, startServer } from '../src/testing/server-process';

/**
 * A log reader that stops reading (a full disk, a slow agent) never stops the service
 * (docs/operations.md, "Logs"): the built server with stdout a pipe this test stops reading.
 * The kernel and this process's stream take a few hundred kilobytes; past them, the server's own
 * buffer (LOG_BUFFER_BYTES) fills, then lines are dropped and counted.
 */
const REQUESTS = 2_000;
const HEALTH_LINE = '"path":"/health/live"';
const BATCH = 20;
/** A batch of 20 loopback requests takes milliseconds: 5 s means the server stopped answering. */
const BATCH_TIMEOUT_MS = 5_000;

/** Sends REQUESTS GET /health/live from `from`, BATCH at a time; fails once a batch goes unanswered. */
async function healthChecks(server: ServerProcess, from: string): Promise<number[]> {
  const agent = keepAliveAgent(from, 8);
  const statuses: number[] = [];
  try {
    while (statuses.length < REQUESTS) {
      const batch = Array.from({ length: BATCH }, () =>
        send({ port: server.port, path: '/health/live', agent }).then(({ status }) => status),
      );
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`answered ${statuses.length} of ${REQUESTS}, then nothing`));
        }, BATCH_TIMEOUT_MS);
      });
      statuses.push(...(await Promise.race([Promise.all(batch), stalled])));
      clearTimeout(timer);
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}

const droppedMetric = async (server: ServerProcess): Promise<number> =>
  Number(/^log_lines_dropped_total (\d+)/m.exec(await server.metrics())?.[1]);

describe('a stalled log reader (built server)', () => {
  let server: ServerProcess | undefined;

  afterEach(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it(
    'keeps answering, drops and counts the lines it cannot hold, and says so once read again',
    async () => {
      const client = nextClient();
      server = await startServer({ LOG_LEVEL: 'info', LOG_BUFFER_BYTES: '65536' });
      const running = server;
      running.pauseStdout();
      const statuses = await healthChecks(running, client);
      expect(statuses.filter((status) => status === 200)).toHaveLength(REQUESTS);
      const counted = await droppedMetric(running);
      expect(counted).toBeGreaterThan(0);

      running.resumeStdout();
      await running.until('the line saying how many were dropped', () =>
        Promise.resolve(running.stdout.includes('"droppedLines"')),
      );
      const [resumed] = running.logLines().filter((line) => 'droppedLines' in line);
      expect(resumed).toMatchObject({
        level: 'warn',
        msg: `stdout is read again: ${String(resumed.droppedLines)} log lines were dropped while it was not`,
      });
      // Every health check's line was written or counted as dropped; the metrics scrape's own
      // line may be among the dropped ones.
      const dropped = Number(resumed.droppedLines);
      expect(dropped).toBeGreaterThanOrEqual(counted);
      expect([REQUESTS, REQUESTS + 1]).toContain(running.linesWith(HEALTH_LINE) + dropped);
    },
    PROCESS_TEST_TIMEOUT_MS * 2,
  );

  it(
    'loses no line written before a normal exit, while its reader caught up late',
    async () => {
      const client = nextClient();
      server = await startServer({ LOG_LEVEL: 'info' });
      const running = server;
      running.pauseStdout();
      expect(await healthChecks(running, client)).toHaveLength(REQUESTS);
      running.signal('SIGTERM');
      // The listener closes at the end of the drain: from there the exit is near, and the lines
      // it still holds (more than the pipe takes) wait for the reader.
      await running.until('the listener to close', async () => !(await accepts(running.port)));
      running.resumeStdout();
      expect(await running.exited).toEqual({ code: 0, signal: null });
      expect(running.linesWith(HEALTH_LINE)).toBe(REQUESTS);
      expect(running.logLines().at(-1)).toMatchObject({ context: 'Shutdown', msg: 'Closed' });
      expect(running.stdout).not.toContain('"droppedLines"');
    },
    PROCESS_TEST_TIMEOUT_MS * 2,
  );

  it(
    'keeps answering when its log reader goes away (EPIPE), counting every line it drops',
    async () => {
      const client = nextClient();
      server = await startServer({ LOG_LEVEL: 'info' });
      const running = server;
      running.closeStdout();
      const statuses = await healthChecks(running, client);
      expect(statuses.filter((status) => status === 200)).toHaveLength(REQUESTS);
      expect(running.hasExited).toBe(false);
      // Every line is dropped and counted, those of the write that met the closed pipe included.
      expect(await droppedMetric(running)).toBeGreaterThanOrEqual(REQUESTS);
    },
    PROCESS_TEST_TIMEOUT_MS * 2,
  );
});
