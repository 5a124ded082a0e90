import type { LoggerService } from '@nestjs/common';
import { utcDayNumber } from '../daily-window';
import type { MemoryDailyLimitStorage } from '../memory-daily-limit.storage';
import type { RedisContributionLedger } from './redis-contribution.ledger';
import { DailyCount, keyTtl, readDailyCount } from './redis-daily-count.script';
import type { RedisConnection } from './redis.connection';

/** A reply read: the shared count, and whether the instance follows it down (a reset). */
type CountReply = DailyCount & { reset: boolean };

/** No contribution and no floor: a key of another day than now's. */
const NONE = { own: 0, floor: 0 };

/**
 * Sends this instance's counts to the daily-count script and reads its replies. Every call passes
 * the floor a replaced key starts again from: the higher of what this instance contributed and
 * its memory's count, less the hits being added that are already in both (hits counted alone).
 */
export class RedisDailyCounter {
  private unusableLogged = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly ledger: RedisContributionLedger,
    private readonly memory: MemoryDailyLimitStorage,
    /** This process's field in each client's key. */
    readonly instance: string,
    private readonly logger: LoggerService,
  ) {}

  /** One request's hit, waiting at most the command timeout. */
  hit(client: string, key: string, now: number): Promise<unknown> {
    const command = this.send(client, key, 1, 0, 'add', utcDayNumber(now), now);
    return this.connection.withinCommandTimeout(command);
  }

  /** `hits` counted alone on UTC day `day`, added to the key of that day. */
  addAlone(client: string, key: string, hits: number, day: number, now: number): Promise<unknown> {
    return this.send(client, key, hits, hits, 'add', day, now);
  }

  /** Raises this instance's field of today's `key` to what it contributed (idempotent). */
  readd(client: string, key: string, now: number): Promise<unknown> {
    return this.send(client, key, 0, 0, 'max', utcDayNumber(now), now);
  }

  /** A reply, read: the contribution confirmed, a replaced key logged; undefined if unusable. */
  read(
    client: string,
    key: string,
    reply: unknown,
    now: number,
    steady = false,
  ): CountReply | undefined {
    const count = readDailyCount(reply);
    if (count === undefined) {
      if (!this.unusableLogged)
        this.logger.warn(
          `Redis at ${this.connection.address} answered ${key} with something else than counts (${JSON.stringify(reply)}): counted in this instance's memory`,
        );
      this.unusableLogged = true;
      return undefined;
    }
    if (count.replaced)
      this.logger.warn(
        `${key} in Redis held a value that is not a daily count: replaced with ${count.total}, the last count this instance saw (fail open from there)`,
      );
    const reset = this.ledger.confirm(client, count.mine, now, steady) || count.replaced;
    return { ...count, reset };
  }

  private send(
    client: string,
    key: string,
    hits: number,
    counted: number,
    mode: 'add' | 'max',
    day: number,
    now: number,
  ): Promise<unknown> {
    const { own, floor } = day === utcDayNumber(now) ? this.floor(client, counted, now) : NONE;
    return this.connection.client.dailyCount(
      key,
      this.instance,
      hits,
      keyTtl(day, now),
      floor,
      own,
      mode,
    );
  }

  /** What this instance contributed to `client`'s day, and the floor: both less `counted`. */
  private floor(client: string, counted: number, now: number) {
    const own = Math.max(0, this.ledger.ownOf(client, now) - counted);
    return { own, floor: Math.max(own, this.memory.count(client, now) - counted) };
  }
}
