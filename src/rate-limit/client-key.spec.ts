import type { Request } from 'express';
import { clientKey } from './client-key';

const request = (ip: string | undefined, remoteAddress?: string) =>
  ({ ip, socket: { remoteAddress } }) as unknown as Pick<Request, 'ip' | 'socket'>;

describe('clientKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::1', '::1'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:db8:1:2::/64'],
    ['2001:DB8:1:3::1', '2001:db8:1:3::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
  ])('counts %s as %s', (ip, key) => {
    expect(clientKey(request(ip, '192.0.2.1'))).toBe(key);
  });

  it('falls back to the socket address, then to one shared key', () => {
    expect(clientKey(request(undefined, '192.0.2.1'))).toBe('192.0.2.1');
    expect(clientKey(request(undefined))).toBe('unknown');
  });
});
