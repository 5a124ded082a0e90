import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TOO_LARGE } from '../src/testing/bodies';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { send } from '../src/testing/http';
import {
  exchange,
  parseResponses,
  RawConnection,
  type RawResponse,
  rawRequest,
} from '../src/testing/raw-http';
import { ServerProcess, startServer } from '../src/testing/server-process';

const KIB = 1024;
const MIB = KIB * KIB;
/** One chunk of an endless chunked body: 64 KiB of data. */
const CHUNK = `10000\r\n${'x'.repeat(64 * KIB)}\r\n`;
/** Where a client streaming to a server that reads on gives up: far past every bound below. */
const CEILING = 512 * MIB;
/**
 * What a client may get written before the server closes: the body limit, the lingering close's
 * as much again, the reads in flight, and what the kernel's socket buffers take on both sides
 * (loopback grows a receive buffer up to net.ipv4.tcp_rmem's maximum, 32 MiB here, and a send
 * buffer up to tcp_wmem's, 4 MiB) before the client's writes stall.
 */
const CLIENT_BOUND = 16 * MIB;
/** What the server process may read of one such request: the limit twice and a few 64 KiB reads. */
const SERVER_BOUND = 512 * KIB;

/** Bytes the server process has read (/proc/<pid>/io `rchar`: every read(2), sockets included). */
const bytesReadBy = (server: ServerProcess): number =>
  Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${server.pid}/io`, 'utf8'))?.[1]);

interface Streamed {
  answer: RawResponse;
  /** Body bytes the client got written before the server closed the connection. */
  written: number;
  /** Whether the server had closed the connection within the test's wait. */
  closed: boolean;
  /** From the first byte of the body to the close. */
  ms: number;
}

/**
 * Sends `method path` with `Transfer-Encoding: chunked` and streams an endless body as fast as
 * the connection takes it, reading the answer meanwhile, until the server closes the connection
 * (or CEILING is written: a server that reads on). Like curl after a 2xx, it does not stop
 * sending when the answer comes.
 */
async function streamEndless(
  port: number,
  { method, path, from }: { method: string; path: string; from: string },
): Promise<Streamed> {
  const connection = await RawConnection.open({ port, localAddress: from });
  await connection.write(rawRequest(method, path, { 'Transfer-Encoding': 'chunked' }));
  const started = performance.now();
  let written = 0;
  while (!connection.socket.destroyed && written < CEILING) {
    await connection.write(CHUNK);
    written += CHUNK.length;
  }
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    connection.closed.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]);
  clearTimeout(timer);
  const ms = performance.now() - started;
  connection.close();
  const [answer] = parseResponses(connection.received, method === 'HEAD');
  return { answer, written, closed, ms };
}

/**
 * docs/contract.md, "Errors": no path reads more than the body limit from one request, whether its
 * route reads a body or not. Only POST /api/depreciate reads one; a preflight, a health check, the
 * docs and the page answer without reading it, and their answer closes the connection while a body
 * is still arriving: they answered 2xx and then read an endless body to the request timeout.
 */
describe('a body its route does not read (built server, defaults)', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer();
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(() => server?.stop(), PROCESS_TEST_TIMEOUT_MS);

  it(
    'answers GET /health and a preflight under an endless chunked body, then closes, having read a bounded amount',
    async () => {
      const client = nextClient();
      const readBefore = bytesReadBy(server);
      const streams = [
        { method: 'GET', path: '/health', from: nextClient() },
        { method: 'OPTIONS', path: '/api/depreciate', from: nextClient() },
        { method: 'GET', path: '/docs-json', from: nextClient() },
      ].map((request) => streamEndless(server.port, request));
      // Another client meanwhile: liveness stays fast.
      const live = performance.now();
      const check = await send({
        port: server.port,
        path: '/health/live',
        localAddress: client,
      });
      const liveMs = performance.now() - live;
      const [health, preflight, document] = await Promise.all(streams);
      const read = bytesReadBy(server) - readBefore;

      expect([health.answer.status, preflight.answer.status, document.answer.status]).toEqual([
        200, 204, 200,
      ]);
      for (const { answer, written, closed, ms } of [health, preflight, document]) {
        expect(answer.headers.connection).toBe('close');
        expect(closed).toBe(true);
        expect(written).toBeLessThan(CLIENT_BOUND);
        // LINGERING_TIMEOUT_MS (1 s) after the server stopped reading, not the request timeout.
        expect(ms).toBeLessThan(5_000);
      }
      expect(read).toBeLessThan(3 * SERVER_BOUND);
      expect(check.status).toBe(200);
      expect(liveMs).toBeLessThan(1_000);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('answers a preflight declaring a body over the limit and closes; GET /health refuses one with 413', async () => {
    const declared = { 'Content-Length': 100 * MIB };
    const [preflight, health] = await Promise.all(
      [
        rawRequest('OPTIONS', '/api/depreciate', declared, 'x'.repeat(16 * KIB)),
        rawRequest('GET', '/health', declared, 'x'.repeat(16 * KIB)),
      ].map((bytes) =>
        exchange(Buffer.from(bytes), {
          port: server.port,
          localAddress: nextClient(),
          timeoutMs: 5_000,
        }),
      ),
    );
    expect([preflight.closed, health.closed]).toEqual([true, true]);
    const [allowed] = parseResponses(preflight.received);
    expect([allowed.status, allowed.headers.connection]).toEqual([204, 'close']);
    const [refused] = parseResponses(health.received);
    expect([refused.status, refused.headers.connection]).toEqual([413, 'close']);
    expect(JSON.parse(refused.body.toString())).toEqual(TOO_LARGE);
  });

  it('keeps the connection of an honest client: no body, a small body whole, a declared one within the limit', async () => {
    const client = nextClient();
    const next = rawRequest('GET', '/health/live');
    for (const first of [
      rawRequest('GET', '/health'),
      rawRequest('GET', '/health', { 'Transfer-Encoding': 'chunked' }, '5\r\nhello\r\n0\r\n\r\n'),
      rawRequest('OPTIONS', '/api/depreciate', { 'Content-Length': 5 }, 'hello'),
      rawRequest('GET', '/health', { 'Content-Length': 4 * KIB }, 'x'.repeat(4 * KIB)),
    ]) {
      const connection = await RawConnection.open({
        port: server.port,
        localAddress: client,
      });
      await connection.write(first + next);
      await connection.until((received) => {
        const text = received.toString();
        return text.split('HTTP/1.1 ').length === 3 && text.endsWith('}');
      });
      const answers = parseResponses(connection.received);
      expect(answers.map((answer) => answer.headers.connection)).toEqual([
        'keep-alive',
        'keep-alive',
      ]);
      expect(connection.socket.destroyed).toBe(false);
      connection.close();
    }
  });
});
