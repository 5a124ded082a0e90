import { TOO_LARGE } from './helpers/bodies';
import { PROCESS_TEST_TIMEOUT_MS } from './helpers/child-process';
import { remaining } from './helpers/daily-limit';
import { depreciate } from './helpers/http';
import { exchange, parseResponses } from './helpers/raw-http';
import { ServerProcess, startServer } from './helpers/server-process';

/**
 * Clients that do not play by the rules, against the built server as a process, from distinct
 * 127.0.0.N addresses. Every wait is bounded; what is read is what a client sees.
 */
describe('hostile clients (built server)', () => {
  let server: ServerProcess;
  let behindProxy: ServerProcess;

  beforeAll(async () => {
    [server, behindProxy] = await Promise.all([
      startServer({ RATE_LIMIT_PER_DAY: '1000' }),
      startServer({ RATE_LIMIT_PER_DAY: '3', TRUST_PROXY: '1' }),
    ]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([server?.stop(), behindProxy?.stop()]);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('refuses a declared Content-Length over the limit on its headers, and closes', async () => {
    const head =
      'POST /api/depreciate HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      'Content-Type: application/json\r\nContent-Length: 50000000\r\n\r\n';
    // One byte of the 50 MB: the answer must not wait for the rest.
    const { received, closed } = await exchange(Buffer.from(`${head}{`), {
      port: server.port,
      localAddress: '127.0.0.71',
      timeoutMs: 3_000,
    });
    expect(closed).toBe(true);
    const [answer, ...more] = parseResponses(received);
    expect(more).toEqual([]);
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body.toString())).toEqual(TOO_LARGE);
  });

  it('counts a forwarded ip:port as its address, and a forwarded non-address as the proxy', async () => {
    const via = async (forwardedFor: string) =>
      remaining(
        await depreciate(behindProxy.port, {
          from: '127.0.0.72',
          headers: { 'x-forwarded-for': forwardedFor },
        }),
      );
    // The same client through a proxy that appends the port: one budget, not one per connection.
    expect(await via('10.9.9.9:1234')).toBe(2);
    expect(await via('10.9.9.9:5678')).toBe(1);
    expect(await via('10.9.9.9')).toBe(0);
    expect(await via('[2001:db8:9::1]:443')).toBe(2);
    // Not addresses: each counts against the connection's own address, 127.0.0.72.
    expect(await via('10.9.9.09')).toBe(2);
    expect(await via('unknown')).toBe(1);
    expect(await via('client.example')).toBe(0);
  });
});
