import { performance } from 'node:perf_hooks';
import { answerAt, VALID } from './helpers/bodies';
import { parseResponses, RawConnection, tryConnect } from './helpers/raw-http';
import { ServerProcess, startServer } from './helpers/server-process';
import { waitFor } from './helpers/wait';

const BODY = JSON.stringify(VALID);

/** Resolves once the server has logged a line with `msg` (the log is the only outside signal). */
function logged(server: ServerProcess, msg: RegExp): Promise<void> {
  const found = () => {
    if (server.logLines().some((l) => typeof l.msg === 'string' && msg.test(l.msg))) return true;
    if (server.hasExited) throw new Error(`Exited before logging ${String(msg)}`);
    return false;
  };
  return waitFor(`a log line ${String(msg)}`, () => Promise.resolve(found()), 10_000, 20);
}

/** Whether `data` holds a whole response with a Content-Length. */
function isWholeResponse(data: Buffer): boolean {
  const headEnd = data.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: (\d+)/i.exec(data.subarray(0, headEnd).toString());
  return headEnd !== -1 && length !== null && data.length >= headEnd + 4 + Number(length[1]);
}

/** Starts a POST whose body stays half-sent: `Expect: 100-continue` tells when it is being handled. */
async function requestInFlight(server: ServerProcess) {
  const connection = await RawConnection.open(server);
  await connection.write(
    'POST /api/depreciate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${BODY.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await connection.until((data) => data.includes('HTTP/1.1 100 Continue\r\n\r\n'));
  await connection.write(BODY.slice(0, 20));
  return connection;
}

describe.each(['SIGTERM', 'SIGINT'] as const)('the built server on %s', (signal) => {
  let server: ServerProcess;

  beforeEach(async () => {
    server = await startServer({ LOG_LEVEL: 'info' });
  }, 30_000);
  afterEach(() => server.kill());

  it('refuses new connections, finishes the requests in flight, closes keep-alive connections, exits 0', async () => {
    // A keep-alive connection left idle after one answer must not hold the shutdown open.
    const idle = await RawConnection.open(server);
    await idle.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await idle.until(isWholeResponse);
    const inFlight = await requestInFlight(server);

    server.signal(signal);
    await logged(server, new RegExp(`^${signal} received`));
    expect(await tryConnect(server.port, server.host)).toBe('ECONNREFUSED');
    // The rest of the body, and a second request right behind it on the same connection.
    await inFlight.write(BODY.slice(20) + 'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await inFlight.closed;

    const received = inFlight.received;
    expect(received.toString().startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    const [answer, next, ...more] = parseResponses(received);
    expect(more).toEqual([]);
    expect(answer.status).toBe(200);
    const answered = JSON.parse(answer.body.toString()) as { meta: { calculatedAt: string } };
    expect(answered).toEqual(answerAt(VALID, answered.meta.calculatedAt));
    expect(next.status).toBe(200);
    expect(next.headers.connection).toBe('close');
    await idle.closed;
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('logs only JSON lines, Nest’s start-up and the shutdown included', async () => {
    server.signal(signal);
    expect(await server.exited).toEqual({ code: 0, signal: null });

    expect(server.stderr).toBe('');
    const lines = server.logLines();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        context: 'NestApplication',
        msg: 'Nest application successfully started',
      }),
    );
    expect(lines.slice(-2)).toEqual([
      expect.objectContaining({
        level: 'info',
        context: 'Shutdown',
        msg: expect.stringMatching(`^${signal} received`),
      }),
      expect.objectContaining({ level: 'info', context: 'Shutdown', msg: 'Closed' }),
    ]);
  }, 30_000);
});

describe('the built server stuck in a request at SIGTERM', () => {
  it('exits anyway, with 1, once SHUTDOWN_TIMEOUT_MS has passed', async () => {
    const server = await startServer({ LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '500' });
    try {
      const stuck = await requestInFlight(server);

      const signalled = performance.now();
      server.signal('SIGTERM');
      expect(await server.exited).toEqual({ code: 1, signal: null });
      const waited = performance.now() - signalled;
      expect(server.logLines().at(-1)).toMatchObject({
        level: 'error',
        context: 'Shutdown',
        msg: 'Still busy 500 ms after SIGTERM: exiting anyway',
      });
      // It waited for the timeout, and not for the default 10 s.
      expect(waited).toBeGreaterThanOrEqual(500);
      expect(waited).toBeLessThan(5_000);
      stuck.close();
    } finally {
      await server.kill();
    }
  }, 30_000);
});
