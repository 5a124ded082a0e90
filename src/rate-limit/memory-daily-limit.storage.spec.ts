import { Clock } from '../common/clock';
import { MemoryDailyLimitStorage } from './memory-daily-limit.storage';

class SetClock extends Clock {
  constructor(public iso: string) {
    super();
  }

  now(): Date {
    return new Date(this.iso);
  }
}

describe('MemoryDailyLimitStorage', () => {
  const clock = new SetClock('2026-12-31T23:59:58.500Z');
  const storage = new MemoryDailyLimitStorage(clock);

  it('counts a client for the UTC day and frees yesterday at midnight', () => {
    expect([1, 2, 3].map(() => storage.hit('203.0.113.1', 2))).toEqual([
      { totalHits: 1, timeToExpire: 2, isBlocked: false, timeToBlockExpire: 0 },
      { totalHits: 2, timeToExpire: 2, isBlocked: false, timeToBlockExpire: 0 },
      { totalHits: 3, timeToExpire: 2, isBlocked: true, timeToBlockExpire: 2 },
    ]);
    storage.hit('203.0.113.2', 2);
    expect(storage.trackedClients).toBe(2);

    clock.iso = '2027-01-01T00:00:00.000Z';
    expect(storage.hit('203.0.113.1', 2)).toEqual({
      totalHits: 1,
      timeToExpire: 86_400,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect(storage.trackedClients).toBe(1);
  });

  it('raises a count to a total known from elsewhere, never lowers it', () => {
    expect(storage.hit('203.0.113.3', 10, 7).totalHits).toBe(7);
    expect(storage.hit('203.0.113.3', 10, 2).totalHits).toBe(8);
    expect(storage.hit('203.0.113.3', 10).totalHits).toBe(9);
  });

  it('reports an unshared memory store', () => {
    expect(storage.state()).toEqual({ store: 'memory', counting: 'memory', shared: false });
  });
});
