import { type CountedInstant, DayRollover } from '../daily-limit.storage';
import { dayKey } from './redis-daily-count-script';

/** Hits counted alone for one client's day, not yet added to Redis. */
type CountedAlone = { client: string; hits: number; day: number };

/** A client refused at once still asks Redis this often, so an operator's reset reaches it. */
export const BLOCKED_RECHECK_MS = 5_000;

/**
 * This instance's contribution to today's shared counts per client, to give back to a Redis that
 * came back empty, and the hits counted alone not yet added (by Redis key: an outage may span
 * midnight). At most `maxClients` clients per map: past that, counted but not remembered.
 */
export class RedisContributionLedger {
  private own = new Map<string, number>();
  /** When each client refused at once last asked Redis (ms). */
  private checked = new Map<string, number>();
  private readonly alone = new Map<string, CountedAlone>();
  private readonly days = new DayRollover(() => {
    this.own = new Map();
    this.checked = new Map();
  });

  constructor(readonly maxClients: number) {}

  get clients(): number {
    return this.own.size;
  }

  /** Redis keys with hits counted alone not yet added. */
  get pendingClients(): number {
    return this.alone.size;
  }

  ownOf(client: string, day: number): number {
    return this.days.isCounted(day) ? (this.own.get(client) ?? 0) : 0;
  }

  countAlone(client: string, day: number): void {
    this.raise(client, this.ownOf(client, day) + 1, day);
    const key = dayKey(client, day);
    const entry = this.alone.get(key);
    if (entry) entry.hits += 1;
    else if (this.alone.size < this.maxClients) this.alone.set(key, { client, hits: 1, day });
  }

  /**
   * In steady state, a field that did not grow past what this instance knew means the key was
   * deleted or replaced: an operator's reset, which the instance follows (answers true).
   */
  confirm(client: string, mine: number, day: number, steady: boolean): boolean {
    const own = this.ownOf(client, day);
    if (steady && mine <= own) {
      this.own.set(client, mine);
      return true;
    }
    this.raise(client, Math.max(own, mine), day);
    return false;
  }

  /** Takes every hit counted alone (to add them); `putBack` returns those that failed. */
  takeAlone(): [string, CountedAlone][] {
    const batch = [...this.alone];
    this.alone.clear();
    return batch;
  }

  putBack(failed: [string, CountedAlone][]): void {
    for (const [key, { client, hits, day }] of failed) {
      const entry = this.alone.get(key);
      if (entry) entry.hits += hits;
      else this.alone.set(key, { client, hits, day });
    }
  }

  /**
   * Today's contributing clients in batches (only keys `include` accepts), to re-add them. A
   * client's hits counted alone are part of it: they leave the outage list as it is taken.
   */
  *today(day: number, size: number, include: (key: string) => boolean = () => true) {
    if (!this.days.isCounted(day)) return;
    let batch: string[] = [];
    for (const client of this.own.keys()) {
      const key = dayKey(client, day);
      if (!include(key)) continue;
      this.alone.delete(key);
      batch.push(client);
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  recheckDue(client: string, { now, day }: CountedInstant): boolean {
    if (this.days.enter(day) !== day) return false;
    const last = this.checked.get(client);
    if (last === undefined) {
      if (this.checked.size < this.maxClients) this.checked.set(client, now);
      return false;
    }
    if (now - last < BLOCKED_RECHECK_MS) return false;
    this.checked.set(client, now);
    return true;
  }

  private raise(client: string, own: number, day: number): void {
    if (this.days.enter(day) !== day) return; // a late reply for yesterday
    if (this.own.has(client) || this.own.size < this.maxClients) this.own.set(client, own);
  }
}
