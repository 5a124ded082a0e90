import { randomInt } from 'node:crypto';

/**
 * Count-min sketch with conservative update (Estan and Varghese, SIGCOMM 2002): never below a true
 * count, so no client passes its limit (odds of early refusals: docs/operations.md). The seed is
 * random, so nobody can choose addresses that land on a given client's cells.
 */
export class CountMinSketch {
  private readonly cells: Uint8Array | Uint16Array | Uint32Array;
  private readonly width: number;
  /** A cell's largest value: reaching it counts as over any limit the cell cannot hold. */
  private readonly top: number;
  private readonly seed = randomInt(2 ** 32 - 1);
  /** Reused, so a hit allocates nothing. */
  private readonly at: Uint32Array;
  private atLimit = 0;

  constructor(
    readonly bytes: number,
    readonly rows: number,
    limit: number,
  ) {
    // The narrowest cells that hold `limit + 1`, so that the most cells fit in the memory given.
    const Type = limit < 0xff ? Uint8Array : limit < 0xffff ? Uint16Array : Uint32Array;
    this.width = Math.max(1, Math.floor(bytes / Type.BYTES_PER_ELEMENT / rows));
    this.cells = new Type(this.width * rows);
    this.top = 2 ** (8 * Type.BYTES_PER_ELEMENT) - 1;
    this.at = new Uint32Array(rows);
  }

  /** Counts one hit of `key` (raised to `atLeast`, a count known from elsewhere) and returns it. */
  hit(key: string, limit: number, atLeast = 0): number {
    this.locate(key);
    const count = Math.max(this.least(limit) + 1, atLeast);
    const stored = Math.min(count, limit + 1, this.top);
    for (const i of this.at) {
      if (this.cells[i] >= stored) continue;
      if (this.cells[i] < limit && stored >= limit) this.atLimit += 1;
      this.cells[i] = stored;
    }
    return count;
  }

  count(key: string, limit: number): number {
    this.locate(key);
    return this.least(limit);
  }

  /** Share of cells at the limit: a new client is refused at once with about this to the `rows`. */
  get saturation(): number {
    return this.atLimit / this.cells.length;
  }

  private least(limit: number): number {
    let least = this.top;
    for (const i of this.at) least = Math.min(least, this.cells[i]);
    return least === this.top && this.top <= limit ? limit + 1 : least;
  }

  /** Two 32-bit hashes, row r taking h1 + r * h2 (Kirsch-Mitzenmacher). */
  private locate(key: string): void {
    let h1 = this.seed ^ 0x811c9dc5;
    let h2 = Math.imul(this.seed, 0x9e3779b1) | 1;
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ code, 0x01000193);
      h2 = Math.imul(h2 ^ code, 0x5bd1e995);
    }
    h1 = mix(h1);
    h2 = mix(h2) | 1;
    for (let r = 0; r < this.rows; r++)
      this.at[r] = r * this.width + (((h1 + Math.imul(r, h2)) >>> 0) % this.width);
  }
}

/** MurmurHash3's finalizer: every bit of the input reaches every bit of the hash. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
