import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupRefusal } from '../common/startup-refusal';
import { configFromEnvironment, Environment, validateEnvironment } from './environment';

/** Every variable's default (docs/contract.md, "Configuration"). */
const DEFAULTS = {
  PORT: 3000,
  HOST: '0.0.0.0',
  RATE_LIMIT_PER_DAY: 100,
  RATE_LIMIT_STORE: 'memory',
  REDIS_URL: 'redis://127.0.0.1:6379',
  REDIS_SENTINELS: '',
  REDIS_SENTINEL_NAME: '',
  REDIS_CLUSTER_NODES: '',
  REDIS_USERNAME: '',
  REDIS_PASSWORD: '',
  REDIS_TLS: false,
  REDIS_SENTINEL_USERNAME: '',
  REDIS_SENTINEL_PASSWORD: '',
  REDIS_SENTINEL_TLS: false,
  REDIS_ALLOW_EVICTION: false,
  REDIS_COMMAND_TIMEOUT_MS: 200,
  READINESS_REQUIRES_SHARED_COUNTERS: false,
  REDIS_CLOCK_OFFSET_WARN_MS: 1_000,
  TRUST_PROXY: false,
  LOG_LEVEL: 'info',
  LOG_BUFFER_BYTES: 4_194_304,
  MAX_CONNECTIONS: 0,
  MAX_CONNECTIONS_PER_CLIENT: 32,
  CONNECTION_REFUSALS_PER_CLIENT: 128,
  CONNECTION_REFUSAL_TIMEOUT_MS: 1_000,
  LINGERING_TIME_MS: 5_000,
  LINGERING_TIMEOUT_MS: 1_000,
  MAX_PIPELINED_REQUESTS: 8,
  HEADERS_TIMEOUT_MS: 10_000,
  REQUEST_TIMEOUT_MS: 15_000,
  MAX_TRACKED_CLIENTS: 1_000_000,
  OVERFLOW_SKETCH_MB: 128,
  KEEP_ALIVE_TIMEOUT_MS: 5_000,
  METRICS_PORT: 9464,
  METRICS_HOST: '127.0.0.1',
  SHUTDOWN_DRAIN_DELAY_MS: 0,
  SHUTDOWN_TIMEOUT_MS: 10_000,
  WARM_UP_MS: 0,
};

describe('validateEnvironment', () => {
  it('gives the defaults of docs/contract.md when nothing is set (or set empty)', () => {
    expect({ ...validateEnvironment({}) }).toEqual(DEFAULTS);
    expect({ ...validateEnvironment({ PORT: '', RATE_LIMIT_PER_DAY: '' }) }).toEqual(DEFAULTS);
  });

  it('reads and types the variables it knows, and ignores the rest', () => {
    expect({
      ...validateEnvironment({
        PORT: '8080',
        HOST: '127.0.0.1',
        RATE_LIMIT_PER_DAY: '5',
        LOG_LEVEL: 'debug',
        SHUTDOWN_TIMEOUT_MS: '500',
        PATH: '/usr/bin',
      }),
    }).toEqual({
      ...DEFAULTS,
      PORT: 8080,
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_DAY: 5,
      LOG_LEVEL: 'debug',
      SHUTDOWN_TIMEOUT_MS: 500,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT="abc" must be an integer from 0 to 65535'],
    [{ PORT: '65536' }, 'Invalid configuration: PORT="65536" must be an integer from 0 to 65535'],
    [{ PORT: '80.5' }, 'Invalid configuration: PORT="80.5" must be an integer from 0 to 65535'],
    [{ PORT: '-1' }, 'Invalid configuration: PORT="-1" must be an integer from 0 to 65535'],
    [{ HOST: 'a b' }, 'Invalid configuration: HOST="a b" must be an IP address or a host name'],
    [
      { RATE_LIMIT_PER_DAY: '0' },
      'Invalid configuration: RATE_LIMIT_PER_DAY="0" must be a whole number of requests, from 1 to 9007199254740991',
    ],
    [
      { RATE_LIMIT_PER_DAY: '1e3' },
      'Invalid configuration: RATE_LIMIT_PER_DAY="1e3" must be a whole number of requests, from 1 to 9007199254740991',
    ],
    [
      { LOG_LEVEL: 'loud' },
      'Invalid configuration: LOG_LEVEL="loud" must be one of silent, fatal, error, warn, info, debug, verbose',
    ],
    [
      { LOG_BUFFER_BYTES: '65535' },
      'Invalid configuration: LOG_BUFFER_BYTES="65535" must be a whole number of bytes, from 65536 to 1073741824',
    ],
    [
      { LOG_BUFFER_BYTES: '4MB' },
      'Invalid configuration: LOG_BUFFER_BYTES="4MB" must be a whole number of bytes, from 65536 to 1073741824',
    ],
    [
      { SHUTDOWN_TIMEOUT_MS: '0' },
      'Invalid configuration: SHUTDOWN_TIMEOUT_MS="0" must be a whole number of milliseconds, from 1 to 3600000',
    ],
    [
      { SHUTDOWN_TIMEOUT_MS: '2.5' },
      'Invalid configuration: SHUTDOWN_TIMEOUT_MS="2.5" must be a whole number of milliseconds, from 1 to 3600000',
    ],
  ])('refuses %p in one line naming the variable', (raw, message) => {
    expect(() => validateEnvironment(raw)).toThrow(new Error(message));
  });
});

describe('validateEnvironment: the daily-limit store and client identity', () => {
  it('takes redis, a Redis URL with credentials and a proxy list', () => {
    const environment = validateEnvironment({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'rediss://app:secret@cache.internal:6380/2',
      TRUST_PROXY: '10.0.0.0/8,loopback',
    });
    expect(environment.RATE_LIMIT_STORE).toBe('redis');
    expect(environment.REDIS_URL).toBe('rediss://app:secret@cache.internal:6380/2');
    expect(environment.TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
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
      'Invalid configuration: REDIS_URL="http://127.0.0.1:6379" must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2',
    ],
    [
      'REDIS_URL',
      'redis://127.0.0.1:6379/abc',
      'Invalid configuration: REDIS_URL="redis://127.0.0.1:6379/abc" must name its database with a whole number after the port, e.g. redis://127.0.0.1:6379/2',
    ],
    [
      'REDIS_URL',
      'redis://127.0.0.1:6379?db=2',
      'Invalid configuration: REDIS_URL="redis://127.0.0.1:6379?db=2" must not have a query string or fragment (e.g. redis://127.0.0.1:6379 or rediss://user:password@host:6380/2)',
    ],
    [
      'READINESS_REQUIRES_SHARED_COUNTERS',
      'yes',
      'Invalid configuration: READINESS_REQUIRES_SHARED_COUNTERS="yes" must be true or false',
    ],
    [
      'REDIS_ALLOW_EVICTION',
      'yes',
      'Invalid configuration: REDIS_ALLOW_EVICTION="yes" must be true or false',
    ],
    [
      'REDIS_COMMAND_TIMEOUT_MS',
      '5',
      'Invalid configuration: REDIS_COMMAND_TIMEOUT_MS="5" must be a whole number of milliseconds, from 10 to 10000',
    ],
    [
      'REDIS_COMMAND_TIMEOUT_MS',
      '0.5',
      'Invalid configuration: REDIS_COMMAND_TIMEOUT_MS="0.5" must be a whole number of milliseconds, from 10 to 10000',
    ],
    [
      'TRUST_PROXY',
      'true',
      'Invalid configuration: TRUST_PROXY="true" must be off, a hop count (0-32), or comma-separated proxy addresses or CIDRs (loopback, linklocal and uniquelocal name ranges)',
    ],
  ])('refuses %s=%j with one line naming it', (name, value, message) => {
    expect(() => validateEnvironment({ [name]: value })).toThrow(new Error(message));
  });

  it.each(['redis://h:6379/01', 'redis://h:6379/-1', 'redis://h:6379/2/x', 'redis://h/2147483648'])(
    'refuses the database of %s (a whole number, as Redis takes it)',
    (url) => {
      expect(() => validateEnvironment({ REDIS_URL: url })).toThrow(/must name its database/);
    },
  );

  it('counts in Redis when REDIS_URL is set without RATE_LIMIT_STORE', () => {
    expect(validateEnvironment({ REDIS_URL: 'redis://cache:6379/0' })).toMatchObject({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'redis://cache:6379/0',
    });
    // Empty is unset, as for every variable.
    expect(validateEnvironment({ REDIS_URL: '' }).RATE_LIMIT_STORE).toBe('memory');
  });

  it('refuses REDIS_URL beside RATE_LIMIT_STORE=memory in one line', () => {
    expect(() =>
      validateEnvironment({ REDIS_URL: 'redis://cache:6379', RATE_LIMIT_STORE: 'memory' }),
    ).toThrow(
      new Error(
        'Invalid configuration: REDIS_URL is set but RATE_LIMIT_STORE=memory: unset REDIS_URL to count in memory, or set RATE_LIMIT_STORE=redis',
      ),
    );
  });

  it('reads READINESS_REQUIRES_SHARED_COUNTERS as true or false', () => {
    const strict = validateEnvironment({ READINESS_REQUIRES_SHARED_COUNTERS: 'true' });
    expect(strict.READINESS_REQUIRES_SHARED_COUNTERS).toBe(true);
    const lax = validateEnvironment({ READINESS_REQUIRES_SHARED_COUNTERS: 'false' });
    expect(lax.READINESS_REQUIRES_SHARED_COUNTERS).toBe(false);
  });

  it('reads REDIS_ALLOW_EVICTION as true or false, and REDIS_COMMAND_TIMEOUT_MS in ms', () => {
    expect(validateEnvironment({ REDIS_ALLOW_EVICTION: 'true' }).REDIS_ALLOW_EVICTION).toBe(true);
    expect(validateEnvironment({ REDIS_ALLOW_EVICTION: 'false' }).REDIS_ALLOW_EVICTION).toBe(false);
    expect(validateEnvironment({ REDIS_COMMAND_TIMEOUT_MS: '1000' }).REDIS_COMMAND_TIMEOUT_MS).toBe(
      1_000,
    );
  });

  it('reads REDIS_CLOCK_OFFSET_WARN_MS in ms, from 1 to a day', () => {
    const offset = (value: string) =>
      validateEnvironment({ REDIS_CLOCK_OFFSET_WARN_MS: value }).REDIS_CLOCK_OFFSET_WARN_MS;
    expect([offset('1'), offset('86400000')]).toEqual([1, 86_400_000]);
    for (const value of ['0', '86400001', '1.5'])
      expect(() => offset(value)).toThrow(
        `Invalid configuration: REDIS_CLOCK_OFFSET_WARN_MS="${value}" must be a whole number of milliseconds, from 1 to 86400000`,
      );
  });
});

describe('validateEnvironment: connection limits and timeouts', () => {
  it('takes whole numbers in their ranges', () => {
    const environment = validateEnvironment({
      MAX_CONNECTIONS: '900',
      MAX_CONNECTIONS_PER_CLIENT: '4',
      MAX_PIPELINED_REQUESTS: '1',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '2000',
      KEEP_ALIVE_TIMEOUT_MS: '100',
      CONNECTION_REFUSALS_PER_CLIENT: '0',
      CONNECTION_REFUSAL_TIMEOUT_MS: '250',
      LINGERING_TIME_MS: '30000',
      LINGERING_TIMEOUT_MS: '100',
      OVERFLOW_SKETCH_MB: '1',
    });
    expect(environment).toMatchObject({
      MAX_CONNECTIONS: 900,
      MAX_CONNECTIONS_PER_CLIENT: 4,
      MAX_PIPELINED_REQUESTS: 1,
      HEADERS_TIMEOUT_MS: 2000,
      REQUEST_TIMEOUT_MS: 2000,
      KEEP_ALIVE_TIMEOUT_MS: 100,
      CONNECTION_REFUSALS_PER_CLIENT: 0,
      CONNECTION_REFUSAL_TIMEOUT_MS: 250,
      LINGERING_TIME_MS: 30_000,
      LINGERING_TIMEOUT_MS: 100,
      OVERFLOW_SKETCH_MB: 1,
    });
  });

  it.each([
    [
      { MAX_CONNECTIONS_PER_CLIENT: '0' },
      'Invalid configuration: MAX_CONNECTIONS_PER_CLIENT="0" must be a whole number of connections, from 1 to 1000000',
    ],
    [
      { MAX_PIPELINED_REQUESTS: 'many' },
      'Invalid configuration: MAX_PIPELINED_REQUESTS="many" must be a whole number of requests, from 1 to 10000',
    ],
    [
      { CONNECTION_REFUSALS_PER_CLIENT: '-1' },
      'Invalid configuration: CONNECTION_REFUSALS_PER_CLIENT="-1" must be a whole number of connections, from 0 to 1000000',
    ],
    [
      { CONNECTION_REFUSAL_TIMEOUT_MS: '5' },
      'Invalid configuration: CONNECTION_REFUSAL_TIMEOUT_MS="5" must be a whole number of milliseconds, from 10 to 60000',
    ],
    [
      { LINGERING_TIME_MS: '1h' },
      'Invalid configuration: LINGERING_TIME_MS="1h" must be a whole number of milliseconds, from 100 to 600000',
    ],
    [
      { LINGERING_TIMEOUT_MS: '0' },
      'Invalid configuration: LINGERING_TIMEOUT_MS="0" must be a whole number of milliseconds, from 100 to 600000',
    ],
    [
      { OVERFLOW_SKETCH_MB: '0' },
      'Invalid configuration: OVERFLOW_SKETCH_MB="0" must be a whole number of MiB, from 1 to 4096',
    ],
    [
      { HEADERS_TIMEOUT_MS: '50' },
      'Invalid configuration: HEADERS_TIMEOUT_MS="50" must be a whole number of milliseconds, from 100 to 3600000',
    ],
    [
      { HEADERS_TIMEOUT_MS: '20000' },
      'Invalid configuration: REQUEST_TIMEOUT_MS=15000 must be at least HEADERS_TIMEOUT_MS (20000): the request includes its headers',
    ],
  ])('refuses %p in one line naming the variable', (raw, message) => {
    expect(() => validateEnvironment(raw)).toThrow(new Error(message));
  });
});

describe('validateEnvironment: the public and the management port', () => {
  it.each([
    [{ PORT: '8080', METRICS_PORT: '9090' }, 8080, 9090],
    [{ PORT: '0', METRICS_PORT: '0' }, 0, 0],
    [{ PORT: '9464', METRICS_PORT: '0' }, 9464, 0],
    [{ PORT: '0', METRICS_PORT: '9464' }, 0, 9464],
  ])('takes %p', (raw, port, metricsPort) => {
    expect(validateEnvironment(raw)).toMatchObject({ PORT: port, METRICS_PORT: metricsPort });
  });

  it.each([
    [{ PORT: '9464' }, 9464],
    [{ METRICS_PORT: '3000' }, 3000],
    [{ PORT: '8080', METRICS_PORT: '8080', HOST: '10.0.0.7', METRICS_HOST: '127.0.0.1' }, 8080],
  ])('refuses %p, one port for both, as a StartupRefusal', (raw, port) => {
    const refusal = () => validateEnvironment(raw);
    expect(refusal).toThrow(StartupRefusal);
    expect(refusal).toThrow(
      new Error(
        `Invalid configuration: METRICS_PORT=${port} must differ from PORT (${port}): /metrics has a port of its own`,
      ),
    );
  });
});

describe('configFromEnvironment', () => {
  it('reads every value, and has no own key ConfigModule would copy into process.env', () => {
    const config = configFromEnvironment({ PORT: '8080' });
    expect([config.PORT, config.REDIS_URL, config.RATE_LIMIT_STORE]).toEqual([
      8080,
      'redis://127.0.0.1:6379',
      'memory',
    ]);
    expect(Object.keys(config)).toEqual([]);
  });
});

/** Every setting with a lower and an upper bound, as its decorators (Min, Max) give them. */
function boundedSettings(): Array<[string, number, number]> {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(Environment, '', true, false);
  const bound = (property: string, name: string) =>
    metadata.find((m) => m.propertyName === property && m.name === name)?.constraints[0] as number;
  const names = [...new Set(metadata.filter((m) => m.name === 'max').map((m) => m.propertyName))];
  return names.map((name) => [name, bound(name, 'min'), bound(name, 'max')]);
}

describe('validateEnvironment: bounded settings', () => {
  const bounded = boundedSettings();

  it('finds the bounded settings', () => {
    expect(bounded.map(([name]) => name)).toEqual(
      expect.arrayContaining(['PORT', 'MAX_CONNECTIONS', 'KEEP_ALIVE_TIMEOUT_MS']),
    );
    expect(bounded.length).toBeGreaterThanOrEqual(19);
  });

  it.each(bounded)('%s: refused past either bound, in a message naming both', (name, min, max) => {
    for (const value of [min - 1, max + 1]) {
      if (value < 0) continue; // "-1" is refused as not digits, before its bound is checked
      expect(() => validateEnvironment({ [name]: String(value) })).toThrow(
        new RegExp(`^Invalid configuration: ${name}="${value}" must be .*from ${min} to ${max}$`),
      );
    }
    // REQUEST_TIMEOUT_MS at its most, so that HEADERS_TIMEOUT_MS at its most is not above it.
    const atMost = { REQUEST_TIMEOUT_MS: '3600000', [name]: String(max) };
    expect(validateEnvironment(atMost)[name as keyof Environment]).toBe(max);
  });

  it.each([
    [
      'MAX_CONNECTIONS',
      '1000001',
      'must be a whole number of connections (0: automatic), from 0 to 1000000',
    ],
    [
      'KEEP_ALIVE_TIMEOUT_MS',
      '3600001',
      'must be a whole number of milliseconds, from 100 to 3600000',
    ],
  ])('refuses %s=%s naming its upper bound', (name, value, message) => {
    expect(() => validateEnvironment({ [name]: value })).toThrow(
      new Error(`Invalid configuration: ${name}="${value}" ${message}`),
    );
  });

  it('has both bounds of each in the settings table of docs/contract.md', () => {
    const table = readFileSync(join(__dirname, '..', '..', 'docs', 'contract.md'), 'utf8');
    const missing = bounded.filter(([name, min, max]) => {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
      const accepted = row.split(' | ')[2] ?? '';
      return !accepted.includes(`from ${min} to ${max}`);
    });
    expect(missing).toEqual([]);
  });
});

describe('validateEnvironment: HOST and METRICS_HOST', () => {
  // Whether this machine has the address, or the name resolves, is known only when it listens.
  it.each([
    '0.0.0.0',
    '::',
    '127.0.0.1',
    'localhost',
    'api.example.com',
    'nonexistent.invalid',
    '10.9.9.9',
    'fe80::1',
    'fe80::1%eth0',
    'host-1.internal',
  ])('takes %s', (host) => {
    expect(validateEnvironment({ HOST: host, METRICS_HOST: host })).toMatchObject({
      HOST: host,
      METRICS_HOST: host,
    });
  });

  it.each([
    '999.999.999.999',
    '1.2.3',
    '10.0.0.256',
    'a b',
    '-host',
    'host-',
    'a..b',
    'api.example.com.',
    `${'x'.repeat(64)}.com`,
    'host_1',
  ])('refuses %j, neither an IP address nor a host name', (host) => {
    for (const name of ['HOST', 'METRICS_HOST']) {
      expect(() => validateEnvironment({ [name]: host })).toThrow(
        new Error(
          `Invalid configuration: ${name}=${JSON.stringify(host)} must be an IP address or a host name`,
        ),
      );
    }
  });
});
