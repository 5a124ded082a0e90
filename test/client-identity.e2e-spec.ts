import { PROCESS_TEST_TIMEOUT_MS } from './helpers/child-process';
import { BuiltServer } from './helpers/built-server';
import { depreciate, remaining } from './helpers/http-client';

const LIMIT = 3;
const forwarded = (address: string) => ({ headers: { 'x-forwarded-for': address } });

describe('Who a request counts against (built server)', () => {
  let direct: BuiltServer;
  let behindProxy: BuiltServer;

  beforeAll(async () => {
    [direct, behindProxy] = await Promise.all([
      BuiltServer.start({ env: { RATE_LIMIT_PER_DAY: String(LIMIT) } }),
      BuiltServer.start({ env: { RATE_LIMIT_PER_DAY: String(LIMIT), TRUST_PROXY: '1' } }),
    ]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([direct?.stop(), behindProxy?.stop()]);
  });

  it(
    'ignores forged forwarding headers without TRUST_PROXY',
    async () => {
      const forgeries: Record<string, string>[] = [
        { 'x-forwarded-for': '198.51.100.1' },
        { 'x-real-ip': '198.51.100.2' },
        { forwarded: 'for=198.51.100.3' },
        { 'x-forwarded-for': '198.51.100.4, 198.51.100.5' },
      ];
      const answers = [];
      for (const headers of forgeries)
        answers.push(await depreciate(direct.url, '127.0.0.41', { headers }));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
      expect(answers.slice(0, 3).map(remaining)).toEqual([2, 1, 0]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'tells distinct sockets apart without TRUST_PROXY',
    async () => {
      expect(remaining(await depreciate(direct.url, '127.0.0.42'))).toBe(2);
      expect(remaining(await depreciate(direct.url, '127.0.0.43'))).toBe(2);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'gives distinct forwarded clients distinct budgets with TRUST_PROXY=1',
    async () => {
      const proxy = '127.0.0.44';
      expect(remaining(await depreciate(behindProxy.url, proxy, forwarded('198.51.100.1')))).toBe(
        2,
      );
      expect(remaining(await depreciate(behindProxy.url, proxy, forwarded('198.51.100.2')))).toBe(
        2,
      );
      expect(remaining(await depreciate(behindProxy.url, proxy, forwarded('198.51.100.1')))).toBe(
        1,
      );
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'takes only the hop the trusted proxy added, not what the client put before it',
    async () => {
      const proxy = '127.0.0.45';
      const chain = (forged: string) => forwarded(`${forged}, 198.51.100.10`);
      const answers = [];
      for (const forged of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
        answers.push(await depreciate(behindProxy.url, proxy, chain(forged)));
      }
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'counts two IPv6 addresses of one /64 as one client, and IPv4-mapped IPv6 as IPv4',
    async () => {
      const proxy = '127.0.0.46';
      const hit = async (address: string) =>
        remaining(await depreciate(behindProxy.url, proxy, forwarded(address)));
      expect(await hit('2001:db8:1:2::1')).toBe(2);
      expect(await hit('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(1);
      expect(await hit('2001:db8:1:3::1')).toBe(2);
      expect(await hit('198.51.100.20')).toBe(2);
      expect(await hit('::ffff:198.51.100.20')).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
