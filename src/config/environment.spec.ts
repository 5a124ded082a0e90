import { validateEnvironment } from './environment';

describe('validateEnvironment: the daily-limit store and client identity', () => {
  it('defaults to memory counters, a local Redis and no trusted proxy', () => {
    const environment = validateEnvironment({});
    expect({
      store: environment.RATE_LIMIT_STORE,
      url: environment.REDIS_URL,
      trustProxy: environment.TRUST_PROXY,
    }).toEqual({ store: 'memory', url: 'redis://127.0.0.1:6379', trustProxy: 'off' });
  });

  it('takes redis, a Redis URL with credentials and a proxy list', () => {
    const environment = validateEnvironment({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'rediss://app:secret@cache.internal:6380/2',
      TRUST_PROXY: '10.0.0.0/8,loopback',
    });
    expect(environment.RATE_LIMIT_STORE).toBe('redis');
    expect(environment.REDIS_URL).toBe('rediss://app:secret@cache.internal:6380/2');
    expect(environment.TRUST_PROXY).toBe('10.0.0.0/8,loopback');
  });

  it.each([
    [
      'RATE_LIMIT_STORE',
      'memcached',
      'Invalid configuration: RATE_LIMIT_STORE="memcached" must be one of memory, redis',
    ],
    [
      'REDIS_URL',
      'http://127.0.0.1:6379',
      'Invalid configuration: REDIS_URL="http://127.0.0.1:6379" must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
    ],
    [
      'TRUST_PROXY',
      'true',
      'Invalid configuration: TRUST_PROXY="true" must be off, a hop count (0-32), or comma-separated proxy addresses or CIDRs (loopback, linklocal and uniquelocal name ranges)',
    ],
  ])('refuses %s=%j with one line naming it', (name, value, message) => {
    expect(() => validateEnvironment({ [name]: value })).toThrow(new Error(message));
  });

  it('keeps a password in REDIS_URL out of the error', () => {
    expect(() => validateEnvironment({ REDIS_URL: 'redis://:hunter2@bad host' })).toThrow(
      /^Invalid configuration: REDIS_URL="redis:\/\/\*\*\*@bad host" /,
    );
  });
});
