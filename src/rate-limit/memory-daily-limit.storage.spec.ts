import { DEFAULTS } from '../config/environment';
import { SettableClock } from '../testing/settable-clock';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import { RecordingLogger } from '../testing/recording-logger';

describe('MemoryDailyLimitStorage', () => {
  let clock: SettableClock;
  let storage: MemoryDailyLimitStorage;
  const hit = (key = 'a', limit = 3) =>
    storage.increment(key, 86_400_000, limit, 86_400_000, 'daily');
  /** The clock's reading, as the Redis store passes it to the fallback. */
  const now = () => clock.now().getTime();
  /** The instant a shared count is for, as the Redis store passes it. */
  const counted = () => storage.fallback.countedAt(now());

  beforeEach(() => {
    clock = new SettableClock('2026-11-21T12:00:00.000Z');
    storage = new MemoryDailyLimitStorage(clock);
  });

  it('counts hits per key and blocks past the limit until midnight UTC', async () => {
    await expect(hit()).resolves.toEqual({
      totalHits: 1,
      timeToExpire: 43_200,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    await hit();
    await expect(hit()).resolves.toMatchObject({ totalHits: 3, isBlocked: false });
    await expect(hit()).resolves.toEqual({
      totalHits: 4,
      timeToExpire: 43_200,
      isBlocked: true,
      timeToBlockExpire: 43_200,
    });
    await expect(hit('b')).resolves.toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('passes exactly `limit` of a burst of concurrent hits', async () => {
    const records = await Promise.all(Array.from({ length: 300 }, () => hit('burst', 100)));
    expect(records.filter((r) => !r.isBlocked)).toHaveLength(100);
  });

  it('starts every counter again at 00:00:00.000 UTC and drops yesterday', async () => {
    for (let i = 0; i < 5; i++) await hit();
    await hit('other');
    clock.set('2026-11-21T23:59:59.999Z');
    await expect(hit()).resolves.toMatchObject({ totalHits: 6, isBlocked: true, timeToExpire: 1 });
    clock.set('2026-11-22T00:00:00.000Z');
    await expect(hit()).resolves.toEqual({
      totalHits: 1,
      timeToExpire: 86_400,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect(storage.trackedClients).toBe(1);
  });

  it('ignores the ttl it is given: the window is the UTC day', async () => {
    const record = await storage.increment('k', 1_000, 1, 1_000, 'daily');
    expect(record.timeToExpire).toBe(43_200);
  });

  it('raises a count to a total known from elsewhere, never lowers it', () => {
    expect(storage.fallback.follow('shared', 10, 7, false, counted()).totalHits).toBe(7);
    expect(storage.fallback.follow('shared', 10, 2, false, counted()).totalHits).toBe(8);
    expect(storage.hit('shared', 10).totalHits).toBe(9);
    expect(storage.fallback.hit('shared', 10, now()).totalHits).toBe(10);
  });

  describe('refuseAtOnce', () => {
    it('answers nothing for a client it has not seen or one still under the limit', async () => {
      expect(storage.refuseAtOnce('a', 2)).toBeUndefined();
      await hit('a', 2);
      expect(storage.refuseAtOnce('a', 2)).toBeUndefined();
      await expect(hit('a', 2)).resolves.toMatchObject({ totalHits: 2, isBlocked: false });
    });

    it('counts and refuses a client with the limit already used, at once', async () => {
      await hit('a', 2);
      await hit('a', 2);
      expect(storage.refuseAtOnce('a', 2)).toEqual({
        totalHits: 3,
        timeToExpire: 43_200,
        isBlocked: true,
        timeToBlockExpire: 43_200,
      });
      await expect(hit('a', 2)).resolves.toMatchObject({ totalHits: 4, isBlocked: true });
      expect(storage.refuseAtOnce('b', 2)).toBeUndefined();
    });

    it("leaves yesterday's count to the next hit once the UTC day has changed", async () => {
      await hit('a', 1);
      clock.set('2026-11-22T00:00:00.000Z');
      expect(storage.refuseAtOnce('a', 1)).toBeUndefined();
      await expect(hit('a', 1)).resolves.toMatchObject({ totalHits: 1, isBlocked: false });
    });
  });

  it('tells the day an instant counts in: its own, or the later one counted in', () => {
    const behind = Date.parse('2026-11-21T23:58:00.000Z');
    expect(storage.fallback.countedAt(behind)).toEqual({ now: behind, day: 20778 });
    clock.set('2026-11-22T00:00:30.000Z');
    storage.hit('a', 3);
    // Behind the 22nd's first hit: still the 22nd, and nothing moves by asking.
    expect(storage.fallback.countedAt(behind)).toEqual({ now: behind, day: 20779 });
    // A shared count for the day before is answered as is, leaving the 22nd's count alone.
    const late = storage.fallback.follow('a', 3, 9, false, { now: behind, day: 20778 });
    expect([late.totalHits, storage.fallback.count('a', now())]).toEqual([9, 1]);
  });

  describe('time only moves forward', () => {
    const at = (iso: string) => clock.set(iso);

    it('keeps counting in the latest day seen when the clock steps back across midnight', () => {
      at('2026-11-21T23:59:56.000Z');
      for (let i = 0; i < 3; i++) storage.hit('a', 3);
      expect(storage.hit('a', 3)).toMatchObject({ totalHits: 4, isBlocked: true });
      at('2026-11-22T00:00:01.000Z');
      expect(storage.hit('a', 3)).toMatchObject({ totalHits: 1, timeToExpire: 86_399 });
      at('2026-11-21T23:59:57.000Z');
      // Day 22 until the clock reaches it again: its end is 86,403 s away by this clock.
      expect(storage.hit('a', 3)).toEqual({
        totalHits: 2,
        timeToExpire: 86_403,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      expect(storage.hit('new', 3)).toMatchObject({ totalHits: 1, timeToExpire: 86_403 });
      storage.hit('a', 3);
      expect(storage.refuseAtOnce('a', 3)).toMatchObject({ totalHits: 4, isBlocked: true });
      expect(storage.fallback.count('a', now())).toBe(4);
      at('2026-11-22T00:00:02.000Z');
      expect(storage.hit('a', 3)).toMatchObject({ totalHits: 5, timeToExpire: 86_398 });
      at('2026-11-23T00:00:00.000Z');
      expect(storage.hit('a', 3)).toMatchObject({ totalHits: 1, isBlocked: false });
    });

    it('raises to a shared count, and follows one down, in the latest day while the clock is behind', () => {
      at('2026-11-22T00:00:30.000Z');
      storage.hit('a', 100);
      at('2026-11-21T23:58:00.000Z');
      // The Redis store passes the clock as it reads: the reset is the 22nd's end by this clock.
      expect(storage.fallback.follow('a', 100, 62, false, counted())).toEqual({
        totalHits: 62,
        timeToExpire: 86_520,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      expect(storage.fallback.follow('a', 100, 5, true, counted())).toMatchObject({
        totalHits: 5,
        timeToExpire: 86_520,
      });
      expect(storage.fallback.count('a', now())).toBe(5);
    });

    it('changes nothing but the reset when the clock steps back within a day', () => {
      at('2026-11-21T18:00:00.000Z');
      for (let i = 0; i < 3; i++) storage.hit('a', 3);
      at('2026-11-21T06:00:00.000Z');
      expect(storage.hit('a', 3)).toMatchObject({ totalHits: 4, timeToExpire: 64_800 });
    });

    it('counts a client past the table in the latest day too', () => {
      storage = new MemoryDailyLimitStorage(clock, 1, 1, { warn: () => undefined } as never);
      at('2026-11-22T00:00:01.000Z');
      storage.hit('first', 3);
      expect(storage.hit('late', 3).totalHits).toBe(1);
      at('2026-11-21T23:59:57.000Z');
      expect(storage.hit('late', 3)).toMatchObject({ totalHits: 2, timeToExpire: 86_403 });
    });
  });

  describe('past maxClients a day', () => {
    let logger: RecordingLogger;
    const full = (max: number) => {
      logger = new RecordingLogger();
      return new MemoryDailyLimitStorage(clock, max, 1, logger);
    };

    it('falls back to a 1 MiB sketch, said at error, when the one configured cannot be had', () => {
      logger = new RecordingLogger();
      // 4 TiB: no process gets that much; the clients past the Map are still each held.
      storage = new MemoryDailyLimitStorage(clock, 1, 4 * 2 ** 20, logger);
      storage.hit('198.51.100.1', 3);
      const records = Array.from({ length: 4 }, () => storage.hit('203.0.113.1', 3).isBlocked);
      expect(records).toEqual([false, false, false, true]);
      expect(logger.lines.filter((line) => line.startsWith('error: '))).toEqual([
        expect.stringMatching(
          /^error: No memory for a 4194304 MiB sketch \(.+\): counting the clients past MAX_TRACKED_CLIENTS in a 1 MiB one until 00:00 UTC$/,
        ),
      ]);
    });

    it('counts each new client on its own key, held to its limit, and keeps the Map bounded', () => {
      storage = full(2);
      storage.hit('198.51.100.1', 3);
      storage.hit('2001:db8:1:2::/64', 3);
      // Full: neighbours that shared a /16 or a /32 before now each have their own budget.
      for (const client of ['203.0.113.1', '203.0.7.9', '2001:db8:ffff:1::/64']) {
        const records = Array.from({ length: 5 }, () => storage.hit(client, 3));
        expect(records.map((r) => [r.totalHits, r.isBlocked])).toEqual([
          [1, false],
          [2, false],
          [3, false],
          [4, true],
          [5, true],
        ]);
        expect(storage.fallback.count(client, now())).toBe(0); // in the sketch, not the Map
      }
      expect(storage.refuseAtOnce('203.0.113.1', 3)).toMatchObject({ isBlocked: true });
      expect(storage.refuseAtOnce('203.0.200.200', 3)).toBeUndefined();
      expect(storage.hit('198.51.100.1', 3).totalHits).toBe(2);
      expect(storage.trackedClients).toBe(2);
      expect(storage.overflowSaturation).toBeGreaterThan(0);
      expect(logger.lines).toEqual([
        'warn: 2 clients counted today (MAX_TRACKED_CLIENTS): new clients are now counted in a 1 MiB sketch (OVERFLOW_SKETCH_MB), each held to its limit, until 00:00 UTC',
      ]);
    });

    it('drops the sketch at midnight UTC, and logs again when the Map fills again', () => {
      storage = full(1);
      storage.hit('a', 1);
      storage.hit('b', 1);
      expect(storage.hit('b', 1).isBlocked).toBe(true);
      clock.set('2026-11-22T00:00:00.000Z');
      expect(storage.hit('b', 1)).toMatchObject({ totalHits: 1, isBlocked: false });
      expect([storage.trackedClients, storage.overflowSaturation]).toEqual([1, 0]);
      storage.hit('c', 1);
      expect(logger.lines).toHaveLength(2);
    });
  });

  it('follows a count that went down (a reset in Redis), and tells its count of a key', () => {
    for (let i = 0; i < 5; i++) storage.hit('a', 3);
    const { fallback } = storage;
    expect(fallback.count('a', now())).toBe(5);
    expect(fallback.follow('a', 3, 1, true, counted())).toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
    expect(storage.refuseAtOnce('a', 3)).toBeUndefined();
    expect([fallback.count('a', now()), fallback.count('unknown', now())]).toEqual([1, 0]);
    expect(fallback.maxClients).toBe(DEFAULTS.MAX_TRACKED_CLIENTS);
  });
});
