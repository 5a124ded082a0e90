import type { LoggerService } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS_KEY_PREFIX } from './redis-daily-count-script';
import { isReplyError, type RedisConnection } from './redis-connection';
import { asError, errorText } from '../../common/error-text';
import { StartupRefusal } from '../../common/startup-refusal';

/** A key of the store's own, for the script permission probe (nothing is written to it). */
const PROBE_KEY = `${REDIS_KEY_PREFIX}:permission-probe`;
/** A SHA no script has: EVALSHA answers NOSCRIPT when the user may run it, NOPERM when not. */
const NO_SUCH_SCRIPT = '0'.repeat(40);

const isDenied = (error: Error) => isReplyError(error) && error.message.startsWith('NOPERM');

/**
 * Before counting in a Redis: no primary may evict (every counter has an expiry, so volatile-*
 * evicts them too), and the user may run the script. A refused CONFIG (a managed Redis) is a
 * policy it cannot check: one warning, then it counts in Redis.
 */
export class RedisServerCheck {
  evictionPolicy?: string;
  refusal?: string;
  scriptDenied = false;
  /** Once serving, a refusal is logged and the store counts alone; before, it stops start-up. */
  serving = false;
  private logged = new Set<string>();

  constructor(
    private readonly connection: RedisConnection,
    private readonly allowEviction: boolean,
    private readonly logger: LoggerService,
  ) {}

  async run(): Promise<void> {
    const primaries = this.connection.primaries();
    await this.checkScript(primaries);
    const policies = await Promise.all(primaries.map((node) => this.policyOf(node)));
    const evicting = policies.filter((policy) => policy !== undefined && policy !== 'noeviction');
    this.evictionPolicy = evicting.length > 0 ? [...new Set(evicting)].join(', ') : undefined;
    this.refusal = undefined;
    if (this.evictionPolicy === undefined) return;
    const found = `Redis at ${this.connection.address} has maxmemory-policy ${this.evictionPolicy}, which can evict the daily counters (an evicted counter is a fresh budget)`;
    if (this.allowEviction) return this.once(`${found}: accepted (REDIS_ALLOW_EVICTION=true)`);
    this.refusal = `${found}: noeviction is required (or set REDIS_ALLOW_EVICTION=true to accept the risk)`;
    if (this.serving)
      this.once(`${this.refusal}; counting in this instance's memory until it is noeviction`);
    throw new StartupRefusal(this.refusal);
  }

  private async policyOf(node: Redis): Promise<string | undefined> {
    let reason: string;
    try {
      const reply = await node.call('CONFIG', 'GET', 'maxmemory-policy');
      if (Array.isArray(reply) && typeof reply[1] === 'string') return reply[1];
      reason = `CONFIG GET answered ${JSON.stringify(reply)}`;
    } catch (error) {
      if (!isReplyError(error)) throw error;
      reason = errorText(error);
    }
    this.once(
      `Could not check the maxmemory-policy of Redis at ${this.connection.nameOf(node)} (${reason}): it must be noeviction, or counters may be evicted`,
    );
    return undefined;
  }

  private async checkScript(primaries: Redis[]): Promise<void> {
    const probes = primaries.flatMap((node) => [
      node.call('EVALSHA', NO_SUCH_SCRIPT, 1, PROBE_KEY),
      node.call('EVAL', 'return 0', 1, PROBE_KEY),
    ]);
    const results = await Promise.allSettled(probes);
    const failures = results.flatMap((result) =>
      result.status === 'rejected' ? [asError(result.reason)] : [],
    );
    const denied = failures.find(isDenied);
    this.scriptDenied = denied !== undefined;
    if (denied) {
      this.once(
        `Redis at ${this.connection.address} does not let this user run the daily-count script (${denied.message}): counting in this instance's memory until it does`,
      );
      throw denied;
    }
    // NOSCRIPT is the allowed answer; in a Cluster, MOVED from a node that does not hold the key.
    const other = failures.find((error) => !isReplyError(error));
    if (other !== undefined) throw other;
  }

  private once(line: string): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    this.logger.warn(line);
  }
}
