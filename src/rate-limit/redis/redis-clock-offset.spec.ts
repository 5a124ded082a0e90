import type Redis from 'ioredis';
import { RecordingLogger } from '../../testing/recording-logger';
import { SettableClock } from '../../testing/settable-clock';
import { RedisClockOffset } from './redis-clock-offset';
import { RedisConnection } from './redis-connection';

const NOW = '2026-11-21T12:00:00.000Z';

/** Redis TIME's reply for `ms` since the epoch: [seconds, microseconds], as strings. */
const timeReply = (ms: number) => [String(Math.floor(ms / 1000)), String((ms % 1000) * 1000)];

/** A client whose TIME answers as `time` says, after `delayMs`. */
class FakeRedis {
  status = 'ready';
  readonly options = { commandTimeout: 500 };
  delayMs = 0;
  reply: unknown = timeReply(Date.parse(NOW));
  time = (): Promise<unknown> =>
    new Promise((resolve) => setTimeout(() => resolve(this.reply), this.delayMs));
}

describe('RedisClockOffset', () => {
  let client: FakeRedis;
  let clock: SettableClock;
  let logger: RecordingLogger;
  let offset: RedisClockOffset;

  beforeEach(() => {
    client = new FakeRedis();
    clock = new SettableClock(NOW);
    logger = new RecordingLogger();
    const connection = new RedisConnection(
      { topology: 'standalone', client: client as unknown as Redis },
      'test-redis',
    );
    offset = new RedisClockOffset(connection, clock, 1_000, logger);
  });

  it("is this clock minus Redis's TIME, less half the round trip", async () => {
    expect(offset.offset).toBeUndefined();
    client.reply = timeReply(Date.parse(NOW) - 90_000);
    await offset.measure();
    // The reply came back at once: this clock read 90 s ahead of Redis's.
    expect(offset.offset).toBeGreaterThan(89_990);
    expect(offset.offset).toBeLessThanOrEqual(90_000);
    // A reply 200 ms on the way: Redis read its clock about 100 ms before this one was read.
    client.reply = timeReply(Date.parse(NOW));
    client.delayMs = 200;
    await offset.measure();
    expect(offset.offset).toBeLessThan(-90);
    expect(offset.offset).toBeGreaterThan(-130);
  });

  it('shows and logs an offset past the threshold once, and says when it is back within', async () => {
    client.reply = timeReply(Date.parse(NOW) - 500);
    await offset.measure();
    expect([offset.skewSeconds, logger.lines]).toEqual([undefined, []]);
    client.reply = timeReply(Date.parse(NOW) + 3_600_000);
    await offset.measure();
    await offset.measure();
    expect(offset.skewSeconds).toBeCloseTo(-3600, 1);
    client.reply = timeReply(Date.parse(NOW));
    await offset.measure();
    expect(offset.skewSeconds).toBeUndefined();
    expect(logger.lines).toEqual([
      expect.stringMatching(
        /^warn: This instance's clock is -3600\.0\d\d s off Redis at test-redis's \(past REDIS_CLOCK_OFFSET_WARN_MS=1000\): around 00:00 UTC it counts in another day than instances on Redis's time$/,
      ),
      expect.stringMatching(
        /^log: This instance's clock is within REDIS_CLOCK_OFFSET_WARN_MS=1000 of Redis at test-redis's again \(-0\.0\d\d s\)$/,
      ),
    ]);
  });

  it('keeps the last measurement while Redis does not answer, or answers something else', async () => {
    client.reply = timeReply(Date.parse(NOW) - 2_000);
    await offset.measure();
    const measured = offset.offset;
    client.status = 'reconnecting';
    await offset.measure();
    client.status = 'ready';
    client.reply = 'OK';
    await offset.measure();
    client.reply = ['x', '1'];
    await offset.measure();
    client.time = () => Promise.reject(new Error('Connection is closed.'));
    await offset.measure();
    expect(offset.offset).toBe(measured);
    expect(offset.skewSeconds).toBeCloseTo(2, 1);
  });
});
