import { StringKeySet, stringHash } from './key-tables.js';
import { spillPart, SpillFiles } from './spill.js';

/** Every this many keys added, a lookup measures itself against its memory budget. */
const BUDGET_KEYS = 65_536;

export function spillPartOf(key: string): number {
  return spillPart(stringHash(key));
}

/**
 * The keys a foreign key may point at. In memory while they fit the budget; past it, on
 * disk in parts by hash, and the rows that point at them are then checked part by part
 * once the referencing table is read (a join, one part in memory at a time).
 */
export class LookupKeys {
  private set: StringKeySet | undefined = new StringKeySet();
  private files: SpillFiles | undefined;
  private added = 0;

  constructor(private readonly budget: number) {}

  add(key: string): void {
    if (this.files) {
      this.files.append(spillPartOf(key), Buffer.from(key));
      return;
    }
    const set = this.set as StringKeySet;
    set.add(key);
    if (++this.added % BUDGET_KEYS === 0 && set.bytes > this.budget) this.spill(set);
  }

  private spill(set: StringKeySet): void {
    const files = (this.files = new SpillFiles());
    for (const key of set.keys()) files.append(spillPartOf(key), Buffer.from(key));
    this.set = undefined;
  }

  get spilled(): boolean {
    return this.files !== undefined;
  }

  /** Whether the key is there; only while the keys are in memory. */
  has(key: string): boolean {
    if (!this.set) throw new Error('the lookup keys are on disk: check them by part');
    return this.set.has(key);
  }

  /** The keys of one part, in memory, for the rows of the same part. */
  part(part: number): StringKeySet {
    const set = new StringKeySet();
    if (this.files) for (const record of this.files.records(part)) set.add(record.toString());
    return set;
  }

  release(): void {
    this.files?.remove();
    this.files = undefined;
    this.set = undefined;
  }
}
