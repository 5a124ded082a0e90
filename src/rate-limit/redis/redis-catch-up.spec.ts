import type { LoggerService } from '@nestjs/common';
import { Cluster } from 'ioredis';
import { utcDayNumber } from '../daily-limit.storage';
import { RedisCatchUp } from './redis-catch-up';
import { RedisContributionLedger } from './redis-contribution-ledger';
import type { RedisDailyCounter } from './redis-daily-count-script';
import { RedisConnection } from './redis-connection';

/** Which node serves each slot, and the run_id each primary answers with (undefined: no answer). */
interface Topology {
  slots: string[][];
  runIds: Record<string, string | undefined>;
}

/** A Cluster as RedisCatchUp reads it, following `topology` as the test changes it. */
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
const NOW = Date.parse('2026-11-24T12:00:00.000Z');
const DAY = utcDayNumber(NOW);

describe('RedisCatchUp in a Cluster', () => {
  it("knows every key's process only once every slot's primary answers, and re-adds to a new one", async () => {
    const topology: Topology = {
      slots: everySlotOn(PRIMARY),
      runIds: { [PRIMARY]: 'a'.repeat(40) },
    };
    const connection = new RedisConnection(
      { topology: 'cluster', client: fakeCluster(topology) },
      'Cluster 10.0.0.1:7000',
    );
    const ledger = new RedisContributionLedger(10);
    ledger.confirm('203.0.113.7', 3, DAY, false);
    const readd = jest.fn(() => Promise.resolve([3, 3, 0]));
    const counter = { readd } as unknown as RedisDailyCounter;
    const warnings: string[] = [];
    const logger = { warn: (line: string) => warnings.push(line) } as LoggerService;
    const catchUp = new RedisCatchUp(
      connection,
      ledger,
      counter,
      () => ({ now: NOW, day: DAY }),
      logger,
    );
    expect(await catchUp.run()).toBe(true);

    // The primary died; the slot table still names it (or a replica not yet known as a primary).
    topology.runIds = { [PRIMARY]: undefined };
    expect(await catchUp.run()).toBe(false);
    expect(readd).not.toHaveBeenCalled();

    // The replica took over: every key's process is known again, and it is another one.
    topology.slots = everySlotOn(REPLICA);
    topology.runIds = { [REPLICA]: 'b'.repeat(40) };
    expect(await catchUp.run()).toBe(true);
    expect(readd.mock.calls).toEqual([['203.0.113.7', { now: NOW, day: DAY }]]);
    expect(warnings).toEqual([
      `Redis at Cluster 10.0.0.1:7000 is another process than before (16384 slots now on ${REPLICA} run_id ${'b'.repeat(40)}): re-adding what this instance counted today for the clients of those slots`,
    ]);
  });
});
