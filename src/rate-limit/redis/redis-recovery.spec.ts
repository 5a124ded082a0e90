import type Redis from 'ioredis';
import { EventEmitter } from 'node:events';
import { RecordingLogger } from '../../testing/recording-logger';
import { SettableClock } from '../../testing/settable-clock';
import type { RedisCatchUp } from './redis-catch-up';
import { RedisConnection } from './redis-connection';
import { RedisContributionLedger } from './redis-contribution-ledger';
import { RedisRecovery } from './redis-recovery';
import type { RedisServerCheck } from './redis-server-check';

const SHARED = 'Daily counters shared in Redis at r';

/** A client that never connects: the tests move the mode by hand. */
const client = () =>
  Object.assign(new EventEmitter(), { status: 'connecting', disconnect: () => undefined });

describe('RedisRecovery', () => {
  let clock: SettableClock;
  let logger: RecordingLogger;
  let mode: RedisRecovery;

  beforeEach(() => {
    clock = new SettableClock('2026-11-21T12:00:00.000Z');
    logger = new RecordingLogger();
    const connection = new RedisConnection(
      { topology: 'standalone', client: client() as unknown as Redis },
      'r',
    );
    const serverCheck = {} as RedisServerCheck;
    const catchUp = {} as RedisCatchUp;
    const ledger = new RedisContributionLedger(10);
    mode = new RedisRecovery(connection, serverCheck, catchUp, ledger, clock, logger);
  });
  // Going alone starts the recovery probe.
  afterEach(() => mode.stop());

  it('starts alone, shares after a catch-up no failure overtook, and logs each change once', () => {
    expect(mode.state()).toEqual({
      counting: 'memory',
      shared: false,
      since: '2026-11-21T12:00:00.000Z',
    });
    const overtaken = mode.generation;
    mode.toAlone('connection closed'); // already alone: it only overtakes the catch-up
    expect(mode.toSharing(overtaken, SHARED)).toBe(false);
    clock.set('2026-11-21T12:00:05.000Z');
    expect(mode.toSharing(mode.generation, SHARED)).toBe(true);
    expect(mode.toSharing(mode.generation, SHARED)).toBe(false);
    expect(mode.state()).toEqual({
      counting: 'redis',
      shared: true,
      since: '2026-11-21T12:00:05.000Z',
    });
    mode.toAlone('timed out');
    mode.toAlone('timed out');
    expect(mode.state()).toMatchObject({ counting: 'memory', shared: false });
    expect(logger.lines).toEqual([
      `log: ${SHARED}`,
      "warn: Redis at r unavailable (timed out): counting in this instance's memory until it is back",
    ]);
  });

  it("counts a slot's clients alone from sharing only, and keeps that moment when all go alone", () => {
    mode.toPartly('timed out');
    expect(mode.inRedis).toBe(false);
    mode.toSharing(mode.generation, SHARED);
    clock.set('2026-11-21T12:00:07.000Z');
    mode.toPartly('timed out');
    mode.toPartly('timed out');
    expect([mode.inRedis, mode.sharing]).toEqual([true, false]);
    expect(mode.state()).toEqual({
      counting: 'redis',
      shared: false,
      since: '2026-11-21T12:00:07.000Z',
    });
    clock.set('2026-11-21T12:00:09.000Z');
    mode.toAlone('connection closed');
    // Not shared for every client since the slot failed: /health's `since` stays at that moment.
    expect(mode.state()).toMatchObject({ counting: 'memory', since: '2026-11-21T12:00:07.000Z' });
    expect(logger.lines.filter((line) => line.includes('for some clients'))).toHaveLength(1);
  });

  it('changes nothing once closed', async () => {
    mode.toSharing(mode.generation, SHARED);
    await mode.stop();
    mode.toAlone('connection closed');
    expect(mode.closed).toBe(true);
    mode.toPartly('timed out');
    expect(mode.state()).toMatchObject({ counting: 'redis', shared: true });
  });
});
