import { validateEnvironment } from './environment';
import { parseRedisNodes, redisTopology } from './redis-topology';

const SENTINELS = {
  REDIS_SENTINELS: '10.0.0.5:26379,[fd00::5]:26380',
  REDIS_SENTINEL_NAME: 'main',
};
const CLUSTER = { REDIS_CLUSTER_NODES: 'redis-a.internal:7000,10.0.0.6:7001' };

describe('parseRedisNodes', () => {
  it.each([
    ['10.0.0.5:26379', [{ host: '10.0.0.5', port: 26379 }]],
    [
      'a.internal:1, [::1]:65535',
      [
        { host: 'a.internal', port: 1 },
        { host: '::1', port: 65535 },
      ],
    ],
  ])('reads %s', (value, nodes) => {
    expect(parseRedisNodes(value)).toEqual(nodes);
  });

  it.each([
    '10.0.0.5',
    '::1:6379',
    '[::g]:6379',
    '[10.0.0.5]:6379',
    'a:0',
    'a:65536',
    'a:1,',
    'a b:1',
  ])('refuses %s', (value) => {
    expect(parseRedisNodes(value)).toBeUndefined();
  });
});

describe('validateEnvironment: where Redis is', () => {
  it.each([
    [{}, 'standalone', 'memory'],
    [{ REDIS_URL: 'redis://cache:6379' }, 'standalone', 'redis'],
    [SENTINELS, 'sentinel', 'redis'],
    [CLUSTER, 'cluster', 'redis'],
  ])('reads %p as %s, with the store %s', (raw, topology, store) => {
    const environment = validateEnvironment(raw);
    expect([redisTopology(environment), environment.RATE_LIMIT_STORE]).toEqual([topology, store]);
  });

  it('takes the data nodes and the sentinels their own credentials and TLS', () => {
    const environment = validateEnvironment({
      ...SENTINELS,
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 'data-secret',
      REDIS_TLS: 'true',
      REDIS_SENTINEL_USERNAME: 'watcher',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_SENTINEL_TLS: 'false',
    });
    expect(environment).toMatchObject({
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 'data-secret',
      REDIS_TLS: true,
      REDIS_SENTINEL_USERNAME: 'watcher',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_SENTINEL_TLS: false,
    });
    const cluster = validateEnvironment({ ...CLUSTER, REDIS_PASSWORD: 'x', REDIS_TLS: 'true' });
    expect(cluster).toMatchObject({ REDIS_PASSWORD: 'x', REDIS_TLS: true });
  });

  it.each([
    [
      { REDIS_SENTINELS: '10.0.0.5', REDIS_SENTINEL_NAME: 'main' },
      'REDIS_SENTINELS="10.0.0.5" must be host:port pairs separated by commas, an IPv6 address in brackets (e.g. 10.0.0.5:26379,[fd00::5]:26379)',
    ],
    [
      { REDIS_CLUSTER_NODES: '::1:7000' },
      'REDIS_CLUSTER_NODES="::1:7000" must be host:port pairs separated by commas, an IPv6 address in brackets (e.g. 10.0.0.5:26379,[fd00::5]:26379)',
    ],
    [
      { ...SENTINELS, REDIS_SENTINEL_NAME: 'my master' },
      'REDIS_SENTINEL_NAME="my master" must be a name of letters, digits, ".", "_" or "-"',
    ],
    [{ ...CLUSTER, REDIS_TLS: 'yes' }, 'REDIS_TLS="yes" must be true or false'],
    [
      { REDIS_URL: 'redis://cache:6379', ...CLUSTER },
      'REDIS_URL and REDIS_CLUSTER_NODES are set: set only one of REDIS_URL, REDIS_SENTINELS (with REDIS_SENTINEL_NAME) or REDIS_CLUSTER_NODES',
    ],
    [
      { REDIS_URL: 'redis://cache:6379', ...SENTINELS, ...CLUSTER },
      'REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES are set: set only one of REDIS_URL, REDIS_SENTINELS (with REDIS_SENTINEL_NAME) or REDIS_CLUSTER_NODES',
    ],
    [
      { REDIS_SENTINELS: '10.0.0.5:26379' },
      'REDIS_SENTINELS is set without REDIS_SENTINEL_NAME: name the primary the sentinels monitor',
    ],
    [
      { REDIS_SENTINEL_NAME: 'main' },
      'REDIS_SENTINEL_NAME is set without REDIS_SENTINELS: it is for Sentinel only',
    ],
    [
      { ...CLUSTER, REDIS_SENTINEL_PASSWORD: 'x' },
      'REDIS_SENTINEL_PASSWORD is set without REDIS_SENTINELS: it is for Sentinel only',
    ],
    [
      { REDIS_URL: 'redis://cache:6379', REDIS_PASSWORD: 'x' },
      'REDIS_PASSWORD is for REDIS_SENTINELS or REDIS_CLUSTER_NODES: with REDIS_URL, give the password in the URL (redis://:password@host:6379) and use rediss:// for TLS',
    ],
    [
      { REDIS_TLS: 'true' },
      'REDIS_TLS is for REDIS_SENTINELS or REDIS_CLUSTER_NODES: with REDIS_URL, give the password in the URL (redis://:password@host:6379) and use rediss:// for TLS',
    ],
    [
      { ...CLUSTER, RATE_LIMIT_STORE: 'memory' },
      'REDIS_CLUSTER_NODES is set but RATE_LIMIT_STORE=memory: unset REDIS_CLUSTER_NODES to count in memory, or set RATE_LIMIT_STORE=redis',
    ],
  ])('refuses %p in one line', (raw, message) => {
    expect(() => validateEnvironment(raw)).toThrow(new Error(`Invalid configuration: ${message}`));
  });

  it('treats an empty variable as unset, as every other', () => {
    expect(
      validateEnvironment({ REDIS_URL: 'redis://cache:6379', REDIS_SENTINELS: '' }),
    ).toMatchObject({ RATE_LIMIT_STORE: 'redis', REDIS_SENTINELS: '' });
  });
});
