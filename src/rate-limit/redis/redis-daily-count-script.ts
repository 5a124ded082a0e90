import type { LoggerService } from '@nestjs/common';
import type { Result } from 'ioredis';
import { DAY_MS, secondsUntilReset } from '../daily-limit.storage';
import type { CountedInstant } from '../daily-limit.storage';
import type { DailyLimitFallback } from '../memory-daily-limit.storage';
import type { RedisConnection } from './redis-connection';
import type { RedisContributionLedger } from './redis-contribution-ledger';

/** Keys: `depreciation:daily:2026-11-21:203.0.113.7` (prefix, UTC date, client). */
export const REDIS_KEY_PREFIX = 'depreciation:daily';
/** So that an instance whose clock lags a little still finds its count. */
const EXPIRY_GRACE_SECONDS = 60;

/** `day` is a day number (CountedInstant's), not epoch ms; the key names its UTC date. */
export const dayKey = (client: string, day: number): string =>
  `${REDIS_KEY_PREFIX}:${new Date(day * DAY_MS).toISOString().slice(0, 10)}:${client}`;

/** More than a day for a day ahead of `now` (a clock behind it); the grace alone once past. */
export const keyTtl = (day: number, now: number): number =>
  Math.max(0, secondsUntilReset(now, day)) + EXPIRY_GRACE_SECONDS;

/**
 * A hash per client's day: a field per instance and `total`. `add` adds `hits`; `max` raises the
 * field to `own` (idempotent). An unusable value restarts from `floor` (reply[2] = 1). EXPIRE, not
 * EXPIREAT: a Redis clock ahead would delete the key.
 */
export const DAILY_COUNT_LUA = `
local key, id = KEYS[1], ARGV[1]
local function count(v)
  if v == false then return 0 end
  if #v <= 15 and (v == '0' or string.match(v, '^[1-9]%d*$')) then return tonumber(v) end
end
local got = redis.pcall('HMGET', key, id, 'total')
local mine, total, replaced = nil, nil, 0
if not got.err then mine, total = count(got[1]), count(got[2]) end
if mine == nil or total == nil then
  replaced = 1
  mine = tonumber(ARGV[5])
  total = math.max(tonumber(ARGV[4]), mine)
  redis.call('DEL', key)
  redis.call('HSET', key, id, mine, 'total', total)
end
local hits = tonumber(ARGV[2])
if ARGV[6] == 'max' then hits = math.max(0, tonumber(ARGV[5]) - mine) end
if hits > 0 then
  mine = redis.call('HINCRBY', key, id, hits)
  total = redis.call('HINCRBY', key, 'total', hits)
end
if redis.call('TTL', key) == -1 then redis.call('EXPIRE', key, ARGV[3]) end
return {total, mine, replaced}`;

type DailyCountMode = 'add' | 'max';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** DAILY_COUNT_LUA on `key`; answers [total, this instance's field, replaced]. */
    dailyCount(
      key: string,
      instance: string,
      hits: number,
      ttlSeconds: number,
      floor: number,
      own: number,
      mode: DailyCountMode,
    ): Result<unknown, Context>;
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The script's reply, named; undefined when it is not one (a per-client event, not an outage). */
export function readDailyCount(reply: unknown) {
  if (!Array.isArray(reply) || reply.length !== 3 || !reply.every(isCount)) return undefined;
  const [total, mine, replaced] = reply;
  return { total, mine, replaced: replaced === 1 };
}

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
    private readonly instance: string,
    private readonly logger: LoggerService,
  ) {}

  hit(client: string, at: CountedInstant): Promise<unknown> {
    return this.connection.withinCommandTimeout(this.send(client, 1, 0, 'add', at.day, at));
  }

  async addAlone(client: string, hits: number, day: number, at: CountedInstant) {
    this.read(client, await this.send(client, hits, hits, 'add', day, at), day);
  }

  async readd(client: string, at: CountedInstant) {
    this.read(client, await this.send(client, 0, 0, 'max', at.day, at), at.day);
  }

  /**
   * The contribution confirmed and a replaced key logged; undefined if the reply is unusable.
   * `reset`: the instance follows the shared count down.
   */
  read(client: string, reply: unknown, day: number, steady = false) {
    const count = readDailyCount(reply);
    if (count === undefined) {
      if (!this.unusableLogged)
        this.logger.warn(
          `Redis at ${this.connection.address} answered ${dayKey(client, day)} with something else than counts (${JSON.stringify(reply)}): counted in this instance's memory`,
        );
      this.unusableLogged = true;
      return undefined;
    }
    if (count.replaced)
      this.logger.warn(
        `${dayKey(client, day)} in Redis held a value that is not a daily count: replaced with ${count.total}, the last count this instance saw (fail open from there)`,
      );
    const reset = this.ledger.confirm(client, count.mine, day, steady) || count.replaced;
    return { total: count.total, reset };
  }

  /** A key of another day than the one counted in has no contribution and no floor. */
  private send(
    client: string,
    hits: number,
    counted: number,
    mode: DailyCountMode,
    day: number,
    at: CountedInstant,
  ): Promise<unknown> {
    let own = 0;
    let floor = 0;
    if (day === at.day) {
      own = Math.max(0, this.ledger.ownOf(client, day) - counted);
      floor = Math.max(own, this.memory.count(client, at.now) - counted);
    }
    const ttl = keyTtl(day, at.now);
    const key = dayKey(client, day);
    return this.connection.client.dailyCount(key, this.instance, hits, ttl, floor, own, mode);
  }
}
