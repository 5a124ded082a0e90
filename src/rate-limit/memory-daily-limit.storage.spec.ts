import { SettableClock } from '../testing/settable-clock';
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

  it("answers a late hit of yesterday without resetting today's counts", () => {
    clock.set('2026-11-22T00:00:01.000Z');
    storage.hit('a', 3);
    const yesterday = Date.parse('2026-11-21T23:59:59.900Z');
    expect(storage.hit('a', 3, 7, yesterday)).toMatchObject({ totalHits: 7, isBlocked: true });
    expect(storage.hit('a', 3).totalHits).toBe(2);
  });

  describe('bounded to maxClients a day', () => {
    let warnings: string[];
    const full = (max: number) => {
      warnings = [];
      const logger = { warn: (message: string) => warnings.push(message) };
      return new MemoryDailyLimitStorage(clock, max, logger as never);
    };

    it('counts new clients past the bound under their IPv4 /16 or IPv6 /32, shared', () => {
      storage = full(2);
      storage.hit('198.51.100.1', 3);
      storage.hit('2001:db8:1:2::/64', 3);
      // Full: two new IPv4 clients of 203.0.0.0/16 share one budget, and cannot pass it.
      expect(storage.hit('203.0.113.1', 3).totalHits).toBe(1);
      expect(storage.hit('203.0.7.9', 3).totalHits).toBe(2);
      expect(storage.hit('203.0.113.1', 3)).toMatchObject({ totalHits: 3, isBlocked: false });
      expect(storage.hit('203.0.113.2', 3)).toMatchObject({ totalHits: 4, isBlocked: true });
      expect(storage.refuseAtOnce('203.0.200.200', 3)?.isBlocked).toBe(true);
      // A new IPv6 /64 shares its /32.
      expect(storage.hit('2001:db8:ffff:1::/64', 3).totalHits).toBe(1);
      expect(storage.hit('2001:db8:aaaa:2::/64', 3).totalHits).toBe(2);
      // Clients counted before it filled keep their own budgets.
      expect(storage.hit('198.51.100.1', 3).totalHits).toBe(2);
      expect(storage.hit('2001:db8:1:2::/64', 3).totalHits).toBe(2);
      expect([storage.trackedClients, storage.widenedKeys]).toEqual([4, 2]);
      expect(warnings).toEqual([
        '2 clients counted today (MAX_TRACKED_CLIENTS): new clients now share the budget of their IPv4 /16 or IPv6 /32 until 00:00 UTC',
      ]);
    });

    it('puts every further new client in one budget once the prefixes fill their reserve', () => {
      storage = full(10);
      for (let i = 0; i < 10; i++) storage.hit(`198.51.100.${i}`, 100);
      // The reserve for prefixes is a tenth of the bound, 16 at least: 16 distinct /16s.
      for (let i = 0; i < 16; i++) expect(storage.hit(`10.${i}.0.1`, 100).totalHits).toBe(1);
      expect(storage.hit('192.0.2.1', 100).totalHits).toBe(1);
      expect(storage.hit('100.64.0.1', 100).totalHits).toBe(2);
      expect([storage.trackedClients, storage.widenedKeys]).toEqual([27, 17]);
      clock.set('2026-11-22T00:00:00.000Z');
      expect(storage.hit('100.64.0.1', 100).totalHits).toBe(1);
      expect([storage.trackedClients, storage.widenedKeys]).toEqual([1, 0]);
    });

    it('keeps a client on its /16 once the reserve is used, and asks nothing of refuseAtOnce', () => {
      storage = full(10);
      for (let i = 0; i < 10; i++) storage.hit(`198.51.100.${i}`, 100);
      expect(storage.hit('10.0.0.1', 100).totalHits).toBe(1); // 10.0.0.0/16
      for (let i = 1; i < 16; i++) storage.hit(`10.${i}.0.1`, 100);
      // The reserve is used: a new /16 goes to the shared overflow, an existing one stays.
      expect(storage.hit('10.0.9.9', 100).totalHits).toBe(2);
      expect(storage.tracks('10.0.9.9')).toBe(false);
      expect(storage.tracks('198.51.100.1')).toBe(true);
      const before = [storage.trackedClients, storage.widenedKeys];
      expect(storage.refuseAtOnce('172.16.0.1', 100)).toBeUndefined();
      expect([storage.trackedClients, storage.widenedKeys]).toEqual(before);
    });

    it('widens IPv6 clients to their /32 whatever the spelling of their /64', () => {
      storage = full(1);
      storage.hit('198.51.100.1', 3);
      expect(storage.hit('2001:db8:0:1::/64', 3).totalHits).toBe(1);
      expect(storage.hit('2001:db8:ffff:2::/64', 3).totalHits).toBe(2);
    });
  });

  it('follows a count that went down (a reset in Redis), and tells its count of a key', () => {
    for (let i = 0; i < 5; i++) storage.hit('a', 3);
    expect(storage.count('a')).toBe(5);
    expect(storage.follow('a', 3, 1)).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(storage.refuseAtOnce('a', 3)).toBeUndefined();
    expect([storage.count('a'), storage.count('unknown')]).toEqual([1, 0]);
  });
});
