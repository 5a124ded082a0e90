import type { Result } from 'ioredis';
import { DAY_MS, secondsUntilReset, utcDateKey } from '../daily-limit.storage';

/** Keys: `depreciation:daily:2026-11-21:203.0.113.7` (prefix, UTC date, client). */
export const REDIS_KEY_PREFIX = 'depreciation:daily';
/** So that an instance whose clock lags a little still finds its count. */
const EXPIRY_GRACE_SECONDS = 60;

export const redisKey = (client: string, epochMs: number): string =>
  `${REDIS_KEY_PREFIX}:${utcDateKey(epochMs)}:${client}`;

/** `day` is a day number (CountedInstant's), not epoch ms. */
export const dayKey = (client: string, day: number): string => redisKey(client, day * DAY_MS);

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

export interface DailyCount {
  total: number;
  /** What this instance has added to it (its field). */
  mine: number;
  /** The key held a value the store could not use, and now holds a count again. */
  replaced: boolean;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Undefined when the reply is not a DailyCount: a per-client event, not an outage. */
export function readDailyCount(reply: unknown): DailyCount | undefined {
  if (!Array.isArray(reply) || reply.length !== 3 || !reply.every(isCount)) return undefined;
  const [total, mine, replaced] = reply;
  return { total, mine, replaced: replaced === 1 };
}
