import { SettableClock } from '../../test/helpers/clock';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';

describe('MemoryDailyLimitStorage', () => {
  let clock: SettableClock;
  let storage: MemoryDailyLimitStorage;
  const hit = (key = 'a', limit = 3) =>
    storage.increment(key, 86_400_000, limit, 86_400_000, 'daily');

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
    expect(storage.hit('shared', 10, 7).totalHits).toBe(7);
    expect(storage.hit('shared', 10, 2).totalHits).toBe(8);
    expect(storage.hit('shared', 10).totalHits).toBe(9);
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
});
