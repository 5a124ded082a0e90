import type { Result } from 'ioredis';
import { DAY_MS, secondsUntilReset, utcDateKey } from '../daily-window';

/** Every key starts with this, then the UTC date, then the client: `depreciation:daily:2026-11-21:203.0.113.7`. */
export const REDIS_KEY_PREFIX = 'depreciation:daily';
/** Keys outlive their day by this much, so an instance whose clock lags a little still finds its count. */
const EXPIRY_GRACE_SECONDS = 60;

export const redisKey = (client: string, epochMs: number): string =>
  `${REDIS_KEY_PREFIX}:${utcDateKey(epochMs)}:${client}`;

/** The key of `client`'s UTC day `day` (a day number: the day counted in, CountedInstant's). */
export const dayKey = (client: string, day: number): string => redisKey(client, day * DAY_MS);

/**
 * Seconds a key of UTC day `day` should live from `now`, by the instance's clock: to the end of
 * that day, plus the grace. More than a day's worth for a later day than now's (a clock behind the
 * day counted in), the grace alone for a day already past.
 */
export const keyTtl = (day: number, now: number): number =>
  Math.max(0, secondsUntilReset(now, day)) + EXPIRY_GRACE_SECONDS;

/**
 * One client's day is a hash: a field per instance (the hits that instance added) and `total`, the
 * day's count. One atomic script per call, touching that one key only (a Cluster slot of its own):
 *
 * - mode `add` adds `hits` to the instance's field and to `total` (a request adds 1; an instance
 *   back from an outage adds what it counted alone);
 * - mode `max` raises the instance's field to `own` and `total` by the difference: re-adding what
 *   the instance contributed after Redis came back empty, idempotent however often it runs.
 *
 * A value the store cannot use (another type, a field that is not a count) is replaced: the key
 * starts again from `floor`, the count the instance last saw (fail open from there), the instance's
 * field from `own`. The reply's third element says so: 1 replaced, 0 used as it was.
 * The expiry is relative (seconds computed by the instance), set whenever the key has none: an
 * EXPIREAT in the past of a Redis clock running ahead would delete the key at once.
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

/** How a call adds: `hits` more, or up to `own` (idempotent re-adding). */
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

/** A reply of DAILY_COUNT_LUA, read. */
export interface DailyCount {
  /** The client's count today, every instance together. */
  total: number;
  /** What this instance has added to it (its field). */
  mine: number;
  /** The key held a value the store could not use, and now holds a count again. */
  replaced: boolean;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The reply as a DailyCount, or undefined when it is not one (a per-client event, not an outage). */
export function readDailyCount(reply: unknown): DailyCount | undefined {
  if (!Array.isArray(reply) || reply.length !== 3 || !reply.every(isCount)) return undefined;
  const [total, mine, replaced] = reply;
  return { total, mine, replaced: replaced === 1 };
}
