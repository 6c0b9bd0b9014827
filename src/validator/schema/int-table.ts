/**
 * An open-addressing hash table from integers to row numbers. Primary keys are most
 * often integers; a Map of a million numbers costs several times more time and memory.
 */
export class IntKeyTable {
  private keys: Float64Array;
  private rows: Float64Array;
  private size = 0;
  private mask: number;

  constructor(capacity = 1024) {
    this.keys = new Float64Array(capacity).fill(NaN);
    this.rows = new Float64Array(capacity);
    this.mask = capacity - 1;
  }

  /** Stores the key if it is new and returns undefined; otherwise returns its first row. */
  firstRowOrAdd(key: number, row: number): number | undefined {
    const keys = this.keys;
    let slot = hash(key) & this.mask;
    for (;;) {
      const found = keys[slot] as number;
      if (found === key) return this.rows[slot];
      if (found !== found) break; // NaN marks an empty slot
      slot = (slot + 1) & this.mask;
    }
    keys[slot] = key;
    this.rows[slot] = row;
    if (++this.size * 2 > keys.length) this.grow();
    return undefined;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldRows = this.rows;
    this.keys = new Float64Array(oldKeys.length * 2).fill(NaN);
    this.rows = new Float64Array(oldKeys.length * 2);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const key = oldKeys[i] as number;
      if (key !== key) continue;
      let slot = hash(key) & this.mask;
      while (this.keys[slot] === this.keys[slot]) slot = (slot + 1) & this.mask;
      this.keys[slot] = key;
      this.rows[slot] = oldRows[i] as number;
    }
  }
}

/**
 * Keeps nearby keys in nearby slots (ids are mostly sequential, and locality is what
 * makes a large table fast) while the shifted terms spread strided keys.
 */
function hash(key: number): number {
  const low = (key | 0) ^ ((key / 4294967296) | 0);
  return low ^ (low >>> 11) ^ (low >>> 22);
}
