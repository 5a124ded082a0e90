import calculateSlot from 'cluster-key-slot';
import Redis, { Cluster } from 'ioredis';
import { isReplyError, nodeName, RedisConnection } from './redis-connection';

const server = (db?: number) => ({ status: 'ready', options: { db } }) as unknown as Redis;
const node = (port: number) => ({ options: { host: '10.0.0.1', port } }) as unknown as Redis;
const cluster = (status: string) =>
  ({ status, nodes: () => [node(7000), node(7001)] }) as unknown as Cluster;

describe("cluster-key-slot, by which the catch-up finds a key's slot", () => {
  // Expected slots from Redis 7's CLUSTER KEYSLOT. (It puts foo{}{bar} in 8363, by the whole key;
  // cluster-key-slot in 4015, by {bar}: a key with braces the store never writes.)
  it.each([
    ['foo', 12182],
    ['123456789', 12739],
    ['{user1000}.following', 3443],
    ['depreciation:daily:2026-11-21:203.0.113.7', 8105],
    ['depreciation:daily:2026-11-21:2001:db8::/64', 13724],
    ['ü', 9552],
  ])('puts %s in slot %i', (key, slot) => expect(calculateSlot(key)).toBe(slot));
});

describe('RedisConnection', () => {
  it('answers for one server: no Cluster, itself as primary', () => {
    const client = server(2);
    const connection = new RedisConnection({ topology: 'sentinel', client }, 'Sentinel main (s)');
    expect(connection.cluster).toBeUndefined();
    expect(connection.primaries()).toEqual([client]);
    expect(connection.nameOf(client)).toBe('Sentinel main (s)');
  });

  it('answers for a Cluster: itself, its masters', () => {
    const up = new RedisConnection({ topology: 'cluster', client: cluster('ready') }, 'Cluster a');
    expect(up.cluster).toBe(up.endpoint.client);
    expect(up.primaries().map((primary) => up.nameOf(primary))).toEqual([
      '10.0.0.1:7000',
      '10.0.0.1:7001',
    ]);
  });

  it("tells Redis's refusals from failures to reach it, and names a node host:port", () => {
    const reply = Object.assign(new Error('NOPERM no permissions'), { name: 'ReplyError' });
    expect([reply, new Error('Connection is closed.'), 'ReplyError'].map(isReplyError)).toEqual([
      true,
      false,
      false,
    ]);
    expect(nodeName(node(7002))).toBe('10.0.0.1:7002');
  });
});
