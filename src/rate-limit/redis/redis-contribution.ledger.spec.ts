import { BLOCKED_RECHECK_MS, RedisContributionLedger } from './redis-contribution.ledger';

const NOON = Date.parse('2026-11-21T12:00:00.000Z');
const NEXT_DAY = Date.parse('2026-11-22T00:00:00.000Z');
const keyOf = (client: string) => `k:${client}`;

describe('RedisContributionLedger', () => {
  it('remembers hits confirmed in Redis and counted alone, and hands the alone ones out once', () => {
    const ledger = new RedisContributionLedger(1_000);
    expect(ledger.confirm('a', 3, NOON, true)).toBe(false);
    ledger.countAlone('a', keyOf('a'), NOON);
    ledger.countAlone('a', keyOf('a'), NOON);
    expect(ledger.ownOf('a', NOON)).toBe(5);
    expect(ledger.takeAlone()).toEqual([['k:a', { client: 'a', hits: 2, day: 20778 }]]);
    expect(ledger.takeAlone()).toEqual([]);
  });

  it('takes a field that did not grow, in steady state, for a reset; otherwise never goes down', () => {
    const ledger = new RedisContributionLedger(1_000);
    ledger.confirm('a', 7, NOON, true);
    expect(ledger.confirm('a', 2, NOON, false)).toBe(false);
    expect(ledger.ownOf('a', NOON)).toBe(7);
    expect(ledger.confirm('a', 1, NOON, true)).toBe(true);
    expect(ledger.ownOf('a', NOON)).toBe(1);
    expect(ledger.confirm('a', 2, NOON, true)).toBe(false);
  });

  it("yields today's contributions in batches, taking each client's hits counted alone with it", () => {
    const ledger = new RedisContributionLedger(1_000);
    for (const client of ['a', 'b', 'c']) ledger.countAlone(client, keyOf(client), NOON);
    const batches = [...ledger.today(NOON, keyOf, 2)];
    expect(batches).toEqual([
      [
        { client: 'a', key: 'k:a' },
        { client: 'b', key: 'k:b' },
      ],
      [{ client: 'c', key: 'k:c' }],
    ]);
    expect(ledger.takeAlone()).toEqual([]);
    expect([...ledger.today(NEXT_DAY, keyOf, 2)]).toEqual([]);
  });

  it('keeps failed additions for the next try, added to hits counted since', () => {
    const ledger = new RedisContributionLedger(1_000);
    ledger.countAlone('a', keyOf('a'), NOON);
    const taken = ledger.takeAlone();
    ledger.countAlone('a', keyOf('a'), NOON);
    ledger.putBack(taken);
    expect(ledger.takeAlone()).toEqual([['k:a', { client: 'a', hits: 2, day: 20778 }]]);
  });

  it('remembers at most maxClients clients, and starts afresh at midnight UTC', () => {
    const ledger = new RedisContributionLedger(2);
    for (const client of ['a', 'b', 'c']) ledger.countAlone(client, keyOf(client), NOON);
    expect(ledger.clients).toBe(2);
    expect(ledger.pendingClients).toBe(2);
    expect(ledger.ownOf('c', NOON)).toBe(0);
    ledger.confirm('c', 1, NEXT_DAY, true);
    expect([ledger.clients, ledger.ownOf('a', NEXT_DAY), ledger.ownOf('c', NEXT_DAY)]).toEqual([
      1, 0, 1,
    ]);
  });

  it('lets a client refused at once ask Redis every BLOCKED_RECHECK_MS, from its first refusal', () => {
    const ledger = new RedisContributionLedger(1_000);
    expect(ledger.recheckDue('a', NOON)).toBe(false);
    expect(ledger.recheckDue('a', NOON + BLOCKED_RECHECK_MS - 1)).toBe(false);
    expect(ledger.recheckDue('a', NOON + BLOCKED_RECHECK_MS)).toBe(true);
    expect(ledger.recheckDue('a', NOON + BLOCKED_RECHECK_MS + 1)).toBe(false);
  });
});
