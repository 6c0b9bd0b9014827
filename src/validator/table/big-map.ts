/**
 * A JavaScript Map or Set holds at most 2^24 entries and throws past that. These keep
 * their entries in as many of them as they need, one after another: below the limit they
 * cost one lookup, as a plain Map does; past it, one per part.
 */
export const PART_ENTRIES = 2 ** 24 - 1;

export class BigMap<K, V> {
  private readonly parts: Map<K, V>[] = [new Map<K, V>()];

  constructor(private readonly partEntries = PART_ENTRIES) {}

  get(key: K): V | undefined {
    const parts = this.parts;
    for (let index = parts.length - 1; index >= 0; index--) {
      const value = (parts[index] as Map<K, V>).get(key);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** Adds a key that is not there yet (callers ask `get` first). */
  add(key: K, value: V): void {
    let last = this.parts[this.parts.length - 1] as Map<K, V>;
    if (last.size >= this.partEntries) {
      last = new Map<K, V>();
      this.parts.push(last);
    }
    last.set(key, value);
  }

  get size(): number {
    return this.parts.reduce((sum, part) => sum + part.size, 0);
  }
}

export class BigSet<K> {
  private readonly parts: Set<K>[] = [new Set<K>()];

  constructor(private readonly partEntries = PART_ENTRIES) {}

  has(key: K): boolean {
    return this.parts.some((part) => part.has(key));
  }

  add(key: K): void {
    if (this.has(key)) return;
    let last = this.parts[this.parts.length - 1] as Set<K>;
    if (last.size >= this.partEntries) {
      last = new Set<K>();
      this.parts.push(last);
    }
    last.add(key);
  }

  get size(): number {
    return this.parts.reduce((sum, part) => sum + part.size, 0);
  }
}
