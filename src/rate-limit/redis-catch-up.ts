import type { LoggerService } from '@nestjs/common';
import { Cluster } from 'ioredis';
import type { Clock } from '../common/clock';
import { utcDayNumber } from './daily-window';
import type { MemoryDailyLimitStorage } from './memory-daily-limit.storage';
import type { RedisClient } from './redis-client';
import { RedisContributions } from './redis-contributions';
import { DailyCount, keyTtl, readDailyCount, redisKey } from './redis-daily-count';
import { IdentityCheck, RedisIdentity } from './redis-identity';
import { errorText } from '../edge/error-text';

/** Commands in flight at once during a catch-up: each touches one key, none spans slots. */
const BATCH = 1_000;

/**
 * What the Redis store does before it counts in Redis again, and how it reads replies:
 * checks that the connection uses the configured database (Redis may refuse it: then never another
 * one), re-adds today's contributions to the keys whose Redis came back empty (RedisIdentity: a
 * restart or a failover, never an operator's DEL), then adds the hits counted alone. Logs what it
 * replaced. Every command touches one key: a Cluster routes each to its slot's primary.
 */
export class RedisCatchUp {
  private readonly identity: RedisIdentity;
  private announced?: string;
  private refused = false;
  private unusableLogged = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly contributions: RedisContributions,
    private readonly memory: MemoryDailyLimitStorage,
    private readonly clock: Clock,
    readonly instance: string,
    private readonly address: string,
    private readonly logger: LoggerService,
  ) {
    this.identity = new RedisIdentity(redis);
  }

  /** Whether Redis refuses the configured database (logged once). */
  get databaseRefused(): boolean {
    return this.refused;
  }

  /**
   * Rejects when the store must go on counting alone; safe to run again. Resolves with whether the
   * process holding every key was known (RedisIdentity's `known`): if not, a Cluster slot may
   * still turn out to have come back empty, and a later run re-adds to it.
   */
  async run(): Promise<boolean> {
    await this.selectDatabase();
    const identity = await this.identity.check();
    if (identity.changed) await this.readdToday(identity);
    await this.addCountedAlone();
    identity.commit();
    return identity.known;
  }

  /** Adds each client's hits counted alone so far; what could not be added is kept for later. */
  async addCountedAlone(): Promise<void> {
    const taken = this.contributions.takeAlone();
    const failed: typeof taken = [];
    for (let i = 0; i < taken.length; i += BATCH) {
      const batch = taken.slice(i, i + BATCH);
      const now = this.clock.now().getTime();
      const sent = batch.map(([key, { client, hits, day }]) => {
        // What this instance had added before these hits (should the key need replacing).
        const today = day === utcDayNumber(now);
        const own = today ? Math.max(0, this.contributions.ownOf(client, now) - hits) : 0;
        const floor = today ? Math.max(own, this.memory.count(client, now) - hits) : 0;
        return this.redis.dailyCount(key, this.instance, hits, keyTtl(day, now), floor, own, 'add');
      });
      const results = await Promise.allSettled(sent);
      results.forEach((result, j) => {
        if (result.status === 'rejected') failed.push(batch[j]);
        else this.read(batch[j][1].client, batch[j][0], result.value, now);
      });
    }
    this.contributions.putBack(failed);
    if (failed.length > 0) throw new Error(`${failed.length} catch-up additions failed`);
  }

  /** A reply, read: the contribution confirmed, a replaced key logged; undefined if unusable. */
  read(
    client: string,
    key: string,
    reply: unknown,
    now: number,
    steady = false,
  ): (DailyCount & { reset: boolean }) | undefined {
    const count = readDailyCount(reply);
    if (count === undefined) {
      if (!this.unusableLogged)
        this.logger.warn(
          `Redis at ${this.address} answered ${key} with something else than counts (${JSON.stringify(reply)}): counted in this instance's memory`,
        );
      this.unusableLogged = true;
      return undefined;
    }
    if (count.replaced)
      this.logger.warn(
        `${key} in Redis held a value that is not a daily count: replaced with ${count.total}, the last count this instance saw (fail open from there)`,
      );
    const reset = this.contributions.confirm(client, count.mine, now, steady) || count.replaced;
    return { ...count, reset };
  }

  private async selectDatabase(): Promise<void> {
    if (this.redis instanceof Cluster) return; // a Cluster has database 0 only
    const database = this.redis.options.db ?? 0;
    if (database === 0) return;
    try {
      await this.redis.select(database);
      this.refused = false;
    } catch (error) {
      if ((error as Error)?.name === 'ReplyError' && !this.refused) {
        this.refused = true;
        this.logger.warn(
          `Redis at ${this.address} refuses database ${database} (${errorText(error)}): counting in this instance's memory, never in another database, until it takes it`,
        );
      }
      throw error;
    }
  }

  /** Raises this instance's field of each changed key counted today to what it contributed. */
  private async readdToday({ changed, label, everyKey }: IdentityCheck): Promise<void> {
    const now = this.clock.now().getTime();
    if (label !== this.announced) {
      this.announced = label;
      this.logger.warn(
        `Redis at ${this.address} is another process than before (${label}): re-adding what this instance counted today for ${everyKey ? `${this.contributions.clients} clients` : 'the clients of those slots'}`,
      );
    }
    const keyOf = (client: string) => redisKey(client, now);
    const batches = this.contributions.today(now, keyOf, BATCH, changed);
    for (const batch of batches) {
      const ttl = keyTtl(utcDayNumber(now), now);
      const results = await Promise.allSettled(
        batch.map(({ client, key, own }) => {
          const floor = Math.max(own, this.memory.count(client, now));
          return this.redis.dailyCount(key, this.instance, 0, ttl, floor, own, 'max');
        }),
      );
      results.forEach((result, i) => {
        if (result.status === 'fulfilled')
          this.read(batch[i].client, batch[i].key, result.value, now);
      });
      const failed = results.filter((result) => result.status === 'rejected');
      if (failed.length > 0) throw new Error(`${failed.length} re-additions failed`);
    }
  }
}
