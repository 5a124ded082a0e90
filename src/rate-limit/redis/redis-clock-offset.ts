import type { LoggerService } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../common/clock';
import type { RedisConnection } from './redis-connection';

const CLOCK_CHECK_MS = 30_000;
/** TIME samples per measurement; the shortest round trip is kept (as NTP does). */
const SAMPLES = 3;

/** Redis TIME's reply ([seconds, microseconds], as strings) in ms; undefined if it is not one. */
function timeOf(reply: unknown): number | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const [seconds, micros] = reply.map(Number);
  if (!Number.isSafeInteger(seconds) || !Number.isSafeInteger(micros)) return undefined;
  return seconds * 1000 + micros / 1000;
}

const signedSeconds = (ms: number): string =>
  `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1000).toFixed(3)}`;

/**
 * This clock against Redis's, the one every instance shares: clocks s seconds apart count in
 * different days for s seconds around 00:00 UTC. Shown and logged only: the fault may be Redis's
 * clock, and then every instance would look skewed.
 */
export class RedisClockOffset {
  /** This clock minus Redis's (ms) at the last measurement; set only by `measure`. */
  offset?: number;
  private skewed = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly connection: RedisConnection,
    private readonly clock: Clock,
    private readonly thresholdMs: number,
    private readonly logger: LoggerService,
  ) {}

  get skewSeconds(): number | undefined {
    return this.skewed && this.offset !== undefined ? Math.round(this.offset) / 1000 : undefined;
  }

  start(): void {
    void this.measure();
    this.timer ??= setInterval(() => void this.measure(), CLOCK_CHECK_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Nothing when Redis does not answer: the outage is RedisRecovery's to report. */
  async measure(): Promise<void> {
    let best: { offset: number; roundTrip: number } | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const sample = await this.sample();
      if (sample === undefined) return;
      if (best === undefined || sample.roundTrip < best.roundTrip) best = sample;
    }
    if (best !== undefined) this.record(best.offset);
  }

  private async sample() {
    const client = this.connection.client;
    if (client.status !== 'ready') return undefined;
    const sent = performance.now();
    const reply = await this.connection.withinCommandTimeout(client.time()).catch(() => undefined);
    const roundTrip = performance.now() - sent;
    const redisTime = timeOf(reply);
    if (redisTime === undefined) return undefined;
    return { offset: this.clock.now().getTime() - roundTrip / 2 - redisTime, roundTrip };
  }

  private record(offset: number): void {
    this.offset = offset;
    const skewed = Math.abs(offset) > this.thresholdMs;
    if (skewed === this.skewed) return;
    this.skewed = skewed;
    const threshold = `REDIS_CLOCK_OFFSET_WARN_MS=${this.thresholdMs}`;
    const at = `Redis at ${this.connection.address}`;
    if (skewed)
      this.logger.warn(
        `This instance's clock is ${signedSeconds(offset)} s off ${at}'s (past ${threshold}): around 00:00 UTC it counts in another day than instances on Redis's time`,
      );
    else
      this.logger.log(
        `This instance's clock is within ${threshold} of ${at}'s again (${signedSeconds(offset)} s)`,
      );
  }
}
