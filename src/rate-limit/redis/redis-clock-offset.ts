import type { LoggerService } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../common/clock';
import type { RedisConnection } from './redis-connection';

/** How often the offset is measured while Redis answers. */
const CLOCK_CHECK_MS = 30_000;
/**
 * TIME commands per measurement, one after another; the one with the shortest round trip is kept
 * (as NTP does): a reply that waited behind other work says less about when Redis read its clock.
 */
const SAMPLES = 3;

/** Redis TIME's reply ([seconds, microseconds], as strings) in ms; undefined if it is not one. */
function timeOf(reply: unknown): number | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const [seconds, micros] = reply.map(Number);
  if (!Number.isSafeInteger(seconds) || !Number.isSafeInteger(micros)) return undefined;
  return seconds * 1000 + micros / 1000;
}

/** `ms` as signed seconds, to the millisecond (`+3600.012`). */
const signedSeconds = (ms: number): string =>
  `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1000).toFixed(3)}`;

/**
 * How far this instance's clock is from the Redis server's: the one clock every instance sharing
 * that Redis can compare itself with. Each instance names the day by its own clock, so instances
 * whose clocks disagree by s seconds count in different days for s seconds around 00:00 UTC
 * (docs/contract.md, "Daily limit"). Measured at start-up and every CLOCK_CHECK_MS while Redis
 * answers: this clock at the reply, less half the round trip (when Redis most likely read its own),
 * minus Redis's TIME, from the quickest of SAMPLES round trips (right to within half of it). Past
 * `thresholdMs` (REDIS_CLOCK_OFFSET_WARN_MS) it shows in /health and is logged once at warn, and
 * once more when it comes back within. It changes neither the counting nor readiness: the fault,
 * if any, may be Redis's clock, and then every instance would look skewed.
 */
export class RedisClockOffset {
  private offsetMs?: number;
  private skewed = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly connection: RedisConnection,
    private readonly clock: Clock,
    private readonly thresholdMs: number,
    private readonly logger: LoggerService,
  ) {}

  /** This clock minus Redis's at the last measurement, in ms (undefined before the first). */
  get offset(): number | undefined {
    return this.offsetMs;
  }

  /** The offset in seconds (to the ms) when it is past the threshold; undefined otherwise. */
  get skewSeconds(): number | undefined {
    return this.skewed && this.offsetMs !== undefined
      ? Math.round(this.offsetMs) / 1000
      : undefined;
  }

  /** Measures now, then every CLOCK_CHECK_MS (the timer does not keep the process alive). */
  start(): void {
    void this.measure();
    this.timer ??= setInterval(() => void this.measure(), CLOCK_CHECK_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One measurement; nothing when Redis does not answer (the outage is RedisRecovery's to report). */
  async measure(): Promise<void> {
    let best: { offset: number; roundTrip: number } | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const sample = await this.sample();
      if (sample === undefined) return;
      if (best === undefined || sample.roundTrip < best.roundTrip) best = sample;
    }
    if (best !== undefined) this.record(best.offset);
  }

  /** One TIME: the offset it gives and its round trip (ms), or undefined without a usable reply. */
  private async sample() {
    const client = this.connection.client;
    if (client.status !== 'ready') return undefined;
    const sent = performance.now();
    let reply: unknown;
    try {
      reply = await this.connection.withinCommandTimeout(client.time());
    } catch {
      return undefined;
    }
    const roundTrip = performance.now() - sent;
    const redisTime = timeOf(reply);
    if (redisTime === undefined) return undefined;
    return { offset: this.clock.now().getTime() - roundTrip / 2 - redisTime, roundTrip };
  }

  private record(offset: number): void {
    this.offsetMs = offset;
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
