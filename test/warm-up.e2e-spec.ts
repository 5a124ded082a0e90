import { depreciate } from '../src/testing/http';
import { OtlpReceiver } from '../src/testing/otlp-receiver';
import { freePort, waitFor } from '../src/testing/processes';
import { runToExit, ServerProcess, startServer } from '../src/testing/server-process';

const LIMIT = 5;
const messages = (server: ServerProcess): string[] =>
  server.logLines().map((line) => String(line.msg));

/**
 * Before it listens, the built server answers its own requests for WARM_UP_MS (docs/operations.md,
 * "The warm-up"): through the whole pipeline, yet none is counted, logged or measured.
 */
describe('the warm-up of the built server', () => {
  it('answers more requests than the limit before it listens, and counts, logs and measures none', async () => {
    const server = await startServer({
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_DAY: String(LIMIT),
      WARM_UP_MS: '300',
    });
    try {
      const warmedUp = messages(server).find((msg) => msg.startsWith('Warmed up'));
      const answered = Number(/sent itself (\d+) requests in 300 ms/.exec(warmedUp ?? '')?.[1]);
      // More than the limit: counted, they would have used up 127.0.0.1's day.
      expect(answered).toBeGreaterThan(LIMIT);
      expect(messages(server).indexOf(warmedUp!)).toBeLessThan(
        messages(server).findIndex((msg) => msg.startsWith('Listening on')),
      );
      const first = await depreciate(server.port);
      expect(first.status).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
      const metrics = await server.metrics();
      expect(metrics).toMatch(/^http_requests_total\{[^}]*route="\/api\/depreciate"[^}]*\} 1$/m);
      await waitFor(
        'the request line',
        () => Promise.resolve(server.linesWith('"req":') > 0),
        5_000,
      );
      expect(server.linesWith('"path":"/api/depreciate"')).toBe(1);
    } finally {
      await server.stop();
    }
  }, 30_000);

  it("exports no span of its own requests: only the client's, once the server has stopped", async () => {
    const receiver = await OtlpReceiver.start();
    try {
      const server = await startServer({
        WARM_UP_MS: '300',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
      expect((await depreciate(server.port)).status).toBe(200);
      // The stop flushes what the SDK still holds: any span the warm-up ended would be in it.
      expect((await server.stop()).code).toBe(0);
      expect(receiver.spans.map((span) => span.name)).toEqual(['POST /api/depreciate']);
    } finally {
      await receiver.close();
    }
  }, 30_000);

  it('ends at once on a stop signal during the warm-up, exit 0, never listening', async () => {
    const [port, metricsPort] = [await freePort('127.0.0.1'), await freePort('127.0.0.1')];
    const env = { LOG_LEVEL: 'info', WARM_UP_MS: '10000' };
    const server = new ServerProcess(port, metricsPort, env);
    const started = () => messages(server).includes('Nest application successfully started');
    await waitFor('the application to start', () => Promise.resolve(started()), 20_000);
    const signalled = Date.now();
    server.signal('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(messages(server).some((msg) => msg.startsWith('Listening on'))).toBe(false);
    expect(messages(server)).toContain('Closed');
  }, 30_000);

  it('is off by default, and a value out of range stops the start in one line', async () => {
    const server = await startServer({ LOG_LEVEL: 'info' });
    await server.stop();
    expect(messages(server).some((msg) => msg.startsWith('Warmed up'))).toBe(false);
    const refused = await runToExit({ WARM_UP_MS: '10001' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/WARM_UP_MS/)]);
  }, 30_000);
});
