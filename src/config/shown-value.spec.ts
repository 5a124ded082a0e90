import { leakedParts, PASSWORD_SHAPES } from '../testing/password-leaks';
import { validateEnvironment } from './environment';

/** The start-up error for `raw`. */
function refusal(raw: Record<string, string>): string {
  try {
    validateEnvironment(raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

/**
 * Settings that are refused, each holding `password` somewhere. (`redis://:${password}` without a
 * host is one only for a password without `@`: with one, what follows is a host, and the URL valid.)
 */
const refusedWith = (password: string): Record<string, string>[] => [
  ...(password.includes('@') ? [] : [{ REDIS_URL: `redis://:${password}` }]),
  { REDIS_URL: `redis://:${password}@` },
  { REDIS_URL: `redis://app:${password}@127.0.0.1:6379/abc` },
  { REDIS_URL: `rediss://${password}@cache.internal:6380/x` },
  { REDIS_URL: `redis://:${password}@bad host:6379` },
  { REDIS_URL: `redis//app:${password}@127.0.0.1:6379` },
  { REDIS_URL: password },
  { REDIS_SENTINELS: `app:${password}@10.0.0.5:26379`, REDIS_SENTINEL_NAME: 'main' },
  { REDIS_CLUSTER_NODES: `10.0.0.5:7000,:${password}@10.0.0.6:7000` },
];

describe('the start-up error never shows a password', () => {
  describe.each(PASSWORD_SHAPES)('%j', (password) => {
    it.each(refusedWith(password))('nor any part of it, for %j', (raw) => {
      const message = refusal(raw);
      expect(message).toMatch(/^Invalid configuration: REDIS_/);
      expect(leakedParts(password, message)).toEqual([]);
    });
  });

  it.each([
    [
      'redis://app:Ab3/xY9+Qz@127.0.0.1:6379',
      'REDIS_URL="redis://***@127.0.0.1:6379" must percent-encode "/", "?", "#" and "%" in its user name and password (as %2F, %3F, %23 and %25)',
    ],
    [
      'redis://admin:Sup3r@Secret@127.0.0.1:6379/abc',
      'REDIS_URL="redis://***@127.0.0.1:6379/abc" must name its database with a whole number after the port, e.g. redis://127.0.0.1:6379/2',
    ],
    [
      'redis://app:50%off@127.0.0.1:6379',
      'REDIS_URL="redis://***@127.0.0.1:6379" must percent-encode "/", "?", "#" and "%" in its user name and password (as %2F, %3F, %23 and %25)',
    ],
    [
      'redis://:hunter2@bad host',
      'REDIS_URL (value not shown: it may hold a password) must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2',
    ],
  ])('shows %j as a URL, its password masked', (url, message) => {
    expect(refusal({ REDIS_URL: url })).toBe(`Invalid configuration: ${message}`);
  });

  it('names a password setting without its value', () => {
    expect(() => validateEnvironment({ REDIS_PASSWORD: 42 })).toThrow(
      /^Invalid configuration: REDIS_PASSWORD \(value not shown: a password\) REDIS_PASSWORD must be a string$/,
    );
  });
});

describe('a password in REDIS_URL', () => {
  it.each([
    'redis://app:Sup3r@Secret@127.0.0.1:6379',
    'redis://app:Q"7z Wk"4p@127.0.0.1:6379/2',
    'redis://:dGhpc2lz%2Bc2Vj%2FcmV0Kz%3D%3D@[::1]:6379',
    'redis://app:50%25off@127.0.0.1:6379',
    'rediss://app:%C3%A9t%C3%A9@cache.internal:6380',
  ])('is taken when ioredis reads it as written: %s', (url) => {
    expect(validateEnvironment({ REDIS_URL: url }).REDIS_URL).toBe(url);
  });

  it.each([
    'redis://app:Ab3/xY9+Qz@127.0.0.1:6379',
    'redis://app:123/xY9@127.0.0.1:6379',
    'redis://app:Tq9?mX@127.0.0.1:6379',
    'redis://app:Tq9#mX@127.0.0.1:6379',
    'redis://app:50%off@127.0.0.1:6379',
    'redis://app:%C3@127.0.0.1:6379',
    'redis://us%er:pw@127.0.0.1:6379',
  ])('is refused when ioredis would read another one, or throw: %s', (url) => {
    expect(refusal({ REDIS_URL: url })).toMatch(/ must percent-encode "\/", "\?", "#" and "%" /);
  });
});
