import { MemoryDailyLimitStorage } from '../src/rate-limit/memory-daily-limit.storage';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';
import { nextClient } from '../src/testing/clients';
import { remaining } from '../src/testing/daily-limit';
import { depreciate } from '../src/testing/http';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { listenTestApp } from '../src/testing/test-app';

const LIMIT = 3;
const forwarded = (address: string) => ({ 'x-forwarded-for': address });

describe('Who a request counts against (built server, TRUST_PROXY off, 1 and a CIDR)', () => {
  let direct: ServerProcess;
  let behindProxy: ServerProcess;
  let behindListed: ServerProcess;

  beforeAll(async () => {
    [direct, behindProxy, behindListed] = await Promise.all([
      startServer({ RATE_LIMIT_PER_DAY: String(LIMIT) }),
      startServer({ RATE_LIMIT_PER_DAY: String(LIMIT), TRUST_PROXY: '1' }),
      startServer({ RATE_LIMIT_PER_DAY: String(LIMIT), TRUST_PROXY: '127.0.0.48/31' }),
    ]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([direct?.stop(), behindProxy?.stop(), behindListed?.stop()]);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('honours X-Forwarded-For from a listed proxy (TRUST_PROXY=127.0.0.48/31) and no other', async () => {
    const via = async (proxy: string, client: string) =>
      remaining(await depreciate(behindListed.port, { from: proxy, headers: forwarded(client) }));
    // 127.0.0.48 and .49 are in the list: each forwarded client has a budget of its own.
    expect(await via('127.0.0.48', '198.51.100.21')).toBe(2);
    expect(await via('127.0.0.49', '198.51.100.22')).toBe(2);
    expect(await via('127.0.0.49', '198.51.100.21')).toBe(1);
    // 127.0.0.50 is not: its header is ignored and it counts as itself.
    expect(await via('127.0.0.50', '198.51.100.23')).toBe(2);
    expect(await via('127.0.0.50', '198.51.100.24')).toBe(1);
  });

  it('ignores forged forwarding headers without TRUST_PROXY', async () => {
    const client = nextClient();
    const forgeries: Record<string, string>[] = [
      { 'x-forwarded-for': '198.51.100.1' },
      { 'x-real-ip': '198.51.100.2' },
      { forwarded: 'for=198.51.100.3' },
      { 'x-forwarded-for': '198.51.100.4, 198.51.100.5' },
    ];
    const answers = [];
    for (const headers of forgeries)
      answers.push(await depreciate(direct.port, { from: client, headers }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers.slice(0, 3).map(remaining)).toEqual([2, 1, 0]);
  });

  it('gives distinct forwarded clients distinct budgets with TRUST_PROXY=1', async () => {
    const proxy = nextClient();
    const hit = async (client: string) =>
      remaining(await depreciate(behindProxy.port, { from: proxy, headers: forwarded(client) }));
    expect(await hit('198.51.100.1')).toBe(2);
    expect(await hit('198.51.100.2')).toBe(2);
    expect(await hit('198.51.100.1')).toBe(1);
  });

  it('takes only the hop the trusted proxy added, not what the client wrote before it', async () => {
    const proxy = nextClient();
    const answers = [];
    for (const forged of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
      answers.push(
        await depreciate(behindProxy.port, {
          from: proxy,
          headers: forwarded(`${forged}, 198.51.100.10`),
        }),
      );
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
  });

  it('hands the client key the forwarded value as sent: a port a proxy appended is dropped there', async () => {
    const proxy = nextClient();
    // How a forwarded value becomes a key (ip:port, [IPv6]:port, an IPv6 /64, IPv4-mapped IPv6, a
    // value that is no address) is pinned once, in src/common/client-key.spec.ts; this is the way in.
    const hit = async (client: string) =>
      remaining(await depreciate(behindProxy.port, { from: proxy, headers: forwarded(client) }));
    expect(await hit('10.9.9.9:1234')).toBe(2);
    expect(await hit('10.9.9.9:5678')).toBe(1);
  });
});

describe('Who a request counts against on a dual-stack socket (in-process app on ::)', () => {
  it('counts an IPv4 client reached over IPv6 (IPv4-mapped) as its IPv4 address', async () => {
    const { app, port } = await listenTestApp({}, '::');
    try {
      // On a dual-stack socket, 127.0.0.1 arrives as ::ffff:127.0.0.1, however it connects.
      const first = await depreciate(port, { from: '127.0.0.1' });
      const second = await depreciate(port, { host: '::ffff:127.0.0.1' });
      expect([remaining(first), remaining(second)]).toEqual([99, 98]);
      // Counted under the IPv4 address itself: this third hit is its third.
      expect(app.get(MemoryDailyLimitStorage).hit('127.0.0.1', 100).totalHits).toBe(3);
    } finally {
      await app.close();
    }
  });
});
