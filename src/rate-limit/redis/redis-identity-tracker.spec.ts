import { Cluster } from 'ioredis';
import { RedisIdentityTracker } from './redis-identity-tracker';
import { RedisConnection } from './redis-connection';

/** Which node serves each slot, and the run_id each primary answers with (undefined: no answer). */
interface Topology {
  slots: string[][];
  runIds: Record<string, string | undefined>;
}

/** A Cluster as RedisIdentityTracker reads it, following `topology` as the test changes it. */
function fakeCluster(topology: Topology): Cluster {
  const nodes = () =>
    Object.entries(topology.runIds).map(([key, runId]) => {
      const [host, port] = key.split(':');
      return {
        options: { host, port: Number(port) },
        info: () =>
          runId === undefined
            ? Promise.reject(new Error('Connection is closed.'))
            : Promise.resolve(`# Server\r\nrun_id:${runId}\r\n`),
      };
    });
  const cluster = Object.create(Cluster.prototype) as Cluster;
  Object.defineProperty(cluster, 'slots', { get: () => topology.slots });
  return Object.assign(cluster, { nodes });
}

const everySlotOn = (node: string) => Array.from({ length: 16_384 }, () => [node]);
const [PRIMARY, REPLICA] = ['10.0.0.1:7000', '10.0.0.2:7001'];

describe('RedisIdentityTracker in a Cluster', () => {
  it("knows every key's process only once every slot's primary answers", async () => {
    const topology: Topology = {
      slots: everySlotOn(PRIMARY),
      runIds: { [PRIMARY]: 'a'.repeat(40) },
    };
    const cluster = fakeCluster(topology);
    const identity = new RedisIdentityTracker(
      new RedisConnection({ topology: 'cluster', client: cluster }, 'Cluster 10.0.0.1:7000'),
    );
    const first = await identity.check();
    expect([first.known, first.changed]).toEqual([true, undefined]);
    first.commit();

    // The primary died; the slot table still names it (or a replica not yet known as a primary).
    topology.runIds = { [PRIMARY]: undefined };
    const during = await identity.check();
    expect([during.known, during.changed]).toEqual([false, undefined]);
    during.commit();

    // The replica took over: every key's process is known again, and it is another one.
    topology.slots = everySlotOn(REPLICA);
    topology.runIds = { [REPLICA]: 'b'.repeat(40) };
    const promoted = await identity.check();
    expect(promoted.known).toBe(true);
    expect(promoted.changed?.('depreciation:daily:2026-11-24:203.0.113.7')).toBe(true);
    expect(promoted.label).toBe(`16384 slots now on ${REPLICA} run_id ${'b'.repeat(40)}`);
  });
});
