import type { LoggerService } from '@nestjs/common';
import { type CountedInstant, isDayOf } from '../daily-limit.storage';
import type { DailyLimitFallback } from '../memory-daily-limit.storage';
import type { RedisContributionLedger } from './redis-contribution-ledger';
import { DailyCount, keyTtl, readDailyCount } from './redis-daily-count-script';
import type { RedisConnection } from './redis-connection';

/** A reply read: the shared count, and whether the instance follows it down (a reset). */
type CountReply = DailyCount & { reset: boolean };

/** No contribution and no floor: a key of another day than the one counted in. */
const NONE = { own: 0, floor: 0 };

/**
 * Talks to the daily-count script. Every call passes the floor a replaced key restarts from: the
 * higher of this instance's contribution and its memory's count, less hits already in both.
 */
export class RedisDailyCounter {
  private unusableLogged = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly ledger: RedisContributionLedger,
    private readonly memory: DailyLimitFallback,
    /** This process's field in each client's key. */
    readonly instance: string,
    private readonly logger: LoggerService,
  ) {}

  hit(client: string, key: string, at: CountedInstant): Promise<unknown> {
    const command = this.send(client, key, 1, 0, 'add', at.day, at);
    return this.connection.withinCommandTimeout(command);
  }

  addAlone(
    client: string,
    key: string,
    hits: number,
    day: number,
    at: CountedInstant,
  ): Promise<unknown> {
    return this.send(client, key, hits, hits, 'add', day, at);
  }

  readd(client: string, key: string, at: CountedInstant): Promise<unknown> {
    return this.send(client, key, 0, 0, 'max', at.day, at);
  }

  /** The contribution confirmed and a replaced key logged; undefined if the reply is unusable. */
  read(
    client: string,
    key: string,
    reply: unknown,
    day: number,
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
    const reset = this.ledger.confirm(client, count.mine, day, steady) || count.replaced;
    return { ...count, reset };
  }

  private send(
    client: string,
    key: string,
    hits: number,
    counted: number,
    mode: 'add' | 'max',
    day: number,
    at: CountedInstant,
  ): Promise<unknown> {
    const { own, floor } = isDayOf(day, at) ? this.floor(client, counted, at) : NONE;
    return this.connection.client.dailyCount(
      key,
      this.instance,
      hits,
      keyTtl(day, at.now),
      floor,
      own,
      mode,
    );
  }

  private floor(client: string, counted: number, { now, day }: CountedInstant) {
    const own = Math.max(0, this.ledger.ownOf(client, day) - counted);
    return { own, floor: Math.max(own, this.memory.count(client, now) - counted) };
  }
}
