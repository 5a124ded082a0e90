import { parseTrustProxy } from './trust-proxy';

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
