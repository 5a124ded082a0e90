import { type CountedInstant, DayRollover } from '../daily-window';

/** Hits counted alone for one client's day, not yet added to Redis. */
interface CountedAlone {
  client: string;
  hits: number;
  /** The UTC day of the key (its expiry follows from it). */
  day: number;
}

/** How long a client this instance refuses at once goes without asking Redis (a reset shows). */
export const BLOCKED_RECHECK_MS = 5_000;

/**
 * What this instance contributed to the shared counts today, per client: the hits it added in
 * Redis (its field in the client's key) and those it counted alone, so that it can give them back
 * to a Redis that came back empty. Also the hits counted alone not yet added (by Redis key: an
 * outage may span midnight). Each map holds at most `maxClients` clients (MAX_TRACKED_CLIENTS);
 * a client past that is still counted, only not remembered here. Today's maps go whole at midnight.
 * Every day it is given is the one the memory store decided (DailyLimitFallback's
 * `countedAt`): the latest day counted, also while the clock stands behind it.
 */
export class RedisContributionLedger {
  private own = new Map<string, number>();
  /** When each client refused at once last asked Redis (ms), so a reset reaches it. */
  private checked = new Map<string, number>();
  private readonly alone = new Map<string, CountedAlone>();
  private readonly days = new DayRollover(() => {
    this.own = new Map();
    this.checked = new Map();
  });

  constructor(readonly maxClients: number) {}

  /** Clients whose contribution is remembered today. */
  get clients(): number {
    return this.own.size;
  }

  /** Hits counted alone not yet added, over every client. */
  get pendingClients(): number {
    return this.alone.size;
  }

  /** What this instance contributed on `day` for `client` (0 when it does not know). */
  ownOf(client: string, day: number): number {
    return this.days.isCounted(day) ? (this.own.get(client) ?? 0) : 0;
  }

  /** A hit counted in this instance's memory only: remembered, to be added to Redis later. */
  countAlone(client: string, key: string, day: number): void {
    this.raise(client, this.ownOf(client, day) + 1, day);
    const entry = this.alone.get(key);
    if (entry) entry.hits += 1;
    else if (this.alone.size < this.maxClients) this.alone.set(key, { client, hits: 1, day });
  }

  /**
   * Redis answered `mine`, this instance's field for `client`. In steady state (no hit counted
   * alone in flight) a field that did not grow past what this instance knew means the key was
   * deleted or replaced since: an operator's reset, which the instance follows (answers true).
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
   * Today's contributions, `size` at a time, for re-adding them to a Redis that came back empty
   * (only the keys `include` accepts: in a Cluster, those of the slots that changed process).
   * Each client's hits counted alone so far are part of its contribution: they leave the
   * outage list as the client is taken, and only hits counted after it are added again later.
   */
  *today(
    day: number,
    keyOf: (client: string) => string,
    size: number,
    include: (key: string) => boolean = () => true,
  ) {
    if (!this.days.isCounted(day)) return;
    let batch: { client: string; key: string }[] = [];
    for (const client of this.own.keys()) {
      const key = keyOf(client);
      if (!include(key)) continue;
      this.alone.delete(key);
      batch.push({ client, key });
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /**
   * Whether a client refused at once should ask Redis this time: once BLOCKED_RECHECK_MS have
   * passed since its first refusal at once, or since it last asked.
   */
  recheckDue(client: string, { now, day }: CountedInstant): boolean {
    if (!this.days.enter(day)) return false;
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
    if (!this.days.enter(day)) return; // a late reply for yesterday
    if (this.own.has(client) || this.own.size < this.maxClients) this.own.set(client, own);
  }
}
