import express from 'express';
import fc from 'fast-check';
import { trustProxyTest } from '../common/platform-internals';
import { validateEnvironment } from './environment';
import { toTrustProxy } from './trust-proxy';

/** What TRUST_PROXY=`raw` is read as; undefined when refused (a refusal reads as its reason). */
function parseTrustProxy(raw: string): unknown {
  const read = toTrustProxy({ value: raw });
  return typeof read === 'string' ? undefined : read;
}

describe('parseTrustProxy', () => {
  it.each([
    ['off', false],
    ['false', false],
    [' OFF ', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.0/24', ['10.0.0.0/8', '192.168.1.0/24']],
    ['10.0.0.0/255.0.0.0', ['10.0.0.0/255.0.0.0']],
    ['loopback,linklocal,uniquelocal', ['loopback', 'linklocal', 'uniquelocal']],
    ['fd00::/8,::1', ['fd00::/8', '::1']],
  ])('reads %j as %j', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
  });

  it.each([
    'true',
    'yes',
    '-1',
    '33',
    '1.5',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/255.0.255.0',
    '10.0.0.0/8/8',
    '10.0.0.1,',
    'proxy.internal',
    '',
  ])('refuses %j', (raw) => {
    expect(parseTrustProxy(raw)).toBeUndefined();
  });
});

/** Express's test of a peer's address for `list`, as app.setup.ts makes it. */
function expressTrusts(list: string[]): (address: string) => boolean {
  const app = express();
  app.set('trust proxy', list);
  const test = trustProxyTest(app);
  return (address) => test(address, 0);
}

const ipv4 = (number: number): string =>
  [24, 16, 8, 0].map((shift) => (number >>> shift) & 255).join('.');

/**
 * Every IPv6 address but the IPv4-mapped ones (::ffff:0:0/96), as ranges: ::/80 without its last
 * 2^32 addresses (::/81, ::8000:0:0/82, … ::fffe:0:0/96), then everything outside ::/80 (8000::/1,
 * 4000::/2, … 0:0:0:0:1::/80, each the other half of the range before).
 */
function everyIpv6ButMapped(): string[] {
  const below = Array.from({ length: 16 }, (_, index) => {
    const group = (0xffff << (16 - index)) & 0xffff;
    return `::${group.toString(16)}:0:0/${81 + index}`;
  });
  const siblings = Array.from({ length: 80 }, (_, index) => {
    const bit = 127 - index;
    const number = 1n << BigInt(bit);
    const groups = Array.from({ length: 8 }, (_, g) =>
      ((number >> BigInt(112 - 16 * g)) & 0xffffn).toString(16),
    );
    return `${groups.join(':')}/${index + 1}`;
  });
  return [...below, ...siblings];
}

describe('parseTrustProxy: a list that trusts every address', () => {
  it.each([
    '0.0.0.0/0',
    '::/0',
    '1.2.3.4/00',
    '::ffff:1.2.3.4/0',
    '10.0.0.0/0.0.0.0',
    '0.0.0.0/1,128.0.0.0/1',
    '10.0.0.0/1,200.0.0.0/1',
    '0.0.0.0/2,64.0.0.0/2,128.0.0.0/1,loopback',
    '0.0.0.0/128.0.0.0,128.0.0.0/128.0.0.0',
    '::/1,8000::/1',
    '::ffff:0.0.0.0/96',
    '::ffff:0:0/97,128.0.0.0/1',
  ])('refuses %s, as it refuses true', (raw) => {
    expect(parseTrustProxy(raw)).toBeUndefined();
    expect(() => validateEnvironment({ TRUST_PROXY: raw })).toThrow(
      `Invalid configuration: TRUST_PROXY=${JSON.stringify(raw)} trusts every address, as true would (any client could name itself in X-Forwarded-For): list only the proxies' addresses or ranges`,
    );
  });

  it('refuses every IPv6 address but the IPv4-mapped ones: those are IPv4 addresses', () => {
    const list = everyIpv6ButMapped();
    expect(parseTrustProxy(list.join(','))).toBeUndefined();
    // Without its last range, 8000::/1, an address is left: Express does not trust it.
    const short = list.filter((entry) => entry !== '8000:0:0:0:0:0:0:0/1');
    expect(parseTrustProxy(short.join(','))).toEqual(short);
    expect(expressTrusts(short)('8000::1')).toBe(false);
    expect(expressTrusts(short)('::1')).toBe(true);
  });

  it.each([
    ['0.0.0.0/1', '128.0.0.1'],
    ['0.0.0.0/1,128.0.0.0/2', '192.0.0.1'],
    ['::/1', '8000::1'],
    ['::/1,8000::/2', 'c000::1'],
    // An IPv6 range does not take IPv4 peers, nor an IPv4-mapped one native IPv6 peers.
    ['::/1,0.0.0.0/1', '203.0.113.7'],
    ['::ffff:0:0/80,0.0.0.0/1', '203.0.113.7'],
  ])('takes %s, which leaves %s untrusted', (raw, untrusted) => {
    const list = raw.split(',');
    expect(parseTrustProxy(raw)).toEqual(list);
    expect(expressTrusts(list)(untrusted)).toBe(false);
  });

  // The first address a list of ranges leaves out is 0 or just past one of them: when the list
  // is refused, Express trusts all of those; when taken, one of them is not trusted.
  it('agrees with Express on random lists of wide IPv4 ranges, as CIDRs, netmasks or mapped', () => {
    const range = fc.record({
      address: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      prefix: fc.integer({ min: 1, max: 4 }),
      form: fc.constantFrom('cidr', 'netmask', 'mapped'),
    });
    const outcomes = { refused: 0, taken: 0 };
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 8 }), (ranges) => {
        const list = ranges.map(({ address, prefix, form }) => {
          if (form === 'mapped') return `::ffff:${ipv4(address)}/${96 + prefix}`;
          const mask = ipv4(Number((0xffffffffn << BigInt(32 - prefix)) & 0xffffffffn));
          return `${ipv4(address)}/${form === 'netmask' ? mask : prefix}`;
        });
        const candidates = [
          0,
          ...ranges.map(({ address, prefix }) => {
            const size = 2 ** (32 - prefix);
            return Math.floor(address / size) * size + size;
          }),
        ].filter((number) => number < 2 ** 32);
        const trusts = expressTrusts(list);
        const trusted = candidates.every((number) => trusts(ipv4(number)));
        const refused = parseTrustProxy(list.join(',')) === undefined;
        expect(refused).toBe(trusted);
        outcomes[refused ? 'refused' : 'taken'] += 1;
      }),
      { numRuns: 500 },
    );
    // Both outcomes were put to the test.
    expect(outcomes.refused).toBeGreaterThan(50);
    expect(outcomes.taken).toBeGreaterThan(50);
  });
});
