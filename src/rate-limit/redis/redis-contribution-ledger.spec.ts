import { BLOCKED_RECHECK_MS, RedisContributionLedger } from './redis-contribution-ledger';

/** 2026-11-21 and 22 as UTC day numbers: the ledger is given the day the store counts in. */
const DAY = 20778;
const NEXT_DAY = DAY + 1;
const NOON = Date.parse('2026-11-21T12:00:00.000Z');
/** `ms` after noon on DAY, as the store counts it. */
const at = (ms = 0) => ({ now: NOON + ms, day: DAY });
const KEY_A = 'depreciation:daily:2026-11-21:a';

describe('RedisContributionLedger', () => {
  it('remembers hits confirmed in Redis and counted alone, and hands the alone ones out once', () => {
    const ledger = new RedisContributionLedger(1_000);
    expect(ledger.confirm('a', 3, DAY, true)).toBe(false);
    ledger.countAlone('a', DAY);
    ledger.countAlone('a', DAY);
    expect(ledger.ownOf('a', DAY)).toBe(5);
    expect(ledger.takeAlone()).toEqual([[KEY_A, { client: 'a', hits: 2, day: 20778 }]]);
    expect(ledger.takeAlone()).toEqual([]);
  });

  it('takes a field that did not grow, in steady state, for a reset; otherwise never goes down', () => {
    const ledger = new RedisContributionLedger(1_000);
    ledger.confirm('a', 7, DAY, true);
    expect(ledger.confirm('a', 2, DAY, false)).toBe(false);
    expect(ledger.ownOf('a', DAY)).toBe(7);
    expect(ledger.confirm('a', 1, DAY, true)).toBe(true);
    expect(ledger.ownOf('a', DAY)).toBe(1);
    expect(ledger.confirm('a', 2, DAY, true)).toBe(false);
  });

  it("yields today's contributions in batches, taking each client's hits counted alone with it", () => {
    const ledger = new RedisContributionLedger(1_000);
    for (const client of ['a', 'b', 'c']) ledger.countAlone(client, DAY);
    const batches = [...ledger.today(DAY, 2)];
    expect(batches).toEqual([['a', 'b'], ['c']]);
    expect(ledger.takeAlone()).toEqual([]);
    expect([...ledger.today(NEXT_DAY, 2)]).toEqual([]);
  });

  it('keeps failed additions for the next try, added to hits counted since', () => {
    const ledger = new RedisContributionLedger(1_000);
    ledger.countAlone('a', DAY);
    const taken = ledger.takeAlone();
    ledger.countAlone('a', DAY);
    ledger.putBack(taken);
    expect(ledger.takeAlone()).toEqual([[KEY_A, { client: 'a', hits: 2, day: 20778 }]]);
  });

  it('remembers at most maxClients clients, and starts afresh at midnight UTC', () => {
    const ledger = new RedisContributionLedger(2);
    for (const client of ['a', 'b', 'c']) ledger.countAlone(client, DAY);
    expect(ledger.clients).toBe(2);
    expect(ledger.pendingClients).toBe(2);
    expect(ledger.ownOf('c', DAY)).toBe(0);
    ledger.confirm('c', 1, NEXT_DAY, true);
    expect([ledger.clients, ledger.ownOf('a', NEXT_DAY), ledger.ownOf('c', NEXT_DAY)]).toEqual([
      1, 0, 1,
    ]);
  });

  it('lets a client refused at once ask Redis every BLOCKED_RECHECK_MS, from its first refusal', () => {
    const ledger = new RedisContributionLedger(1_000);
    expect(ledger.recheckDue('a', at())).toBe(false);
    expect(ledger.recheckDue('a', at(BLOCKED_RECHECK_MS - 1))).toBe(false);
    expect(ledger.recheckDue('a', at(BLOCKED_RECHECK_MS))).toBe(true);
    expect(ledger.recheckDue('a', at(BLOCKED_RECHECK_MS + 1))).toBe(false);
  });

  it('keeps to the day it is given while the clock stands behind it', () => {
    const ledger = new RedisContributionLedger(1_000);
    ledger.confirm('a', 61, NEXT_DAY, true);
    // 23:58 on DAY, counting in NEXT_DAY: the same maps, and refusals still ask Redis again.
    const behind = (ms: number) => ({ now: NEXT_DAY * 86_400_000 - 120_000 + ms, day: NEXT_DAY });
    ledger.countAlone('a', NEXT_DAY);
    expect(ledger.ownOf('a', NEXT_DAY)).toBe(62);
    expect([...ledger.today(NEXT_DAY, 10)]).toEqual([['a']]);
    expect(ledger.recheckDue('a', behind(0))).toBe(false);
    expect(ledger.recheckDue('a', behind(BLOCKED_RECHECK_MS))).toBe(true);
  });
});
