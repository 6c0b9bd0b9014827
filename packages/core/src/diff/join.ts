/**
 * Matches the two sides of a table diff one part at a time: side a's part is held (its key
 * to its record), then side b's part streams past it. Rows whose texts are the same bytes
 * are unchanged without being decoded; the others are decoded and compared cell by cell.
 */
import { readPart } from '../validator/table/spill.js';
import { RECORD_HEADER } from './encode.js';
import type { ResourceDescriptor } from '../validator/descriptor/types.js';
import { comparableCasts } from '../validator/rows.js';
import type { CellChange, RowCounts, RowSamples } from './row-types.js';
import { canonical, schemaOf } from './schema.js';

/** How two sides' parts are matched: all of it crosses to a worker thread. */
export interface JoinPlan {
  keyed: boolean;
  /** The compared fields by their name in b, which the samples use. */
  columns: string[];
  /** Where the key's fields are among the columns. */
  keyAt: number[];
  /**
   * Whether the records hold values as their cells are written, cast only when two texts
   * differ (which may then still be the same values).
   */
  asWritten: boolean;
  /** Each side's table and its compared fields, by its own names. */
  a: { resource: ResourceDescriptor; columns: string[] };
  b: { resource: ResourceDescriptor; columns: string[] };
  limit: number;
}

/** A record's values text as comparable values: cast here when they were written as the cells are. */
function decoder(side: JoinPlan['a'], asWritten: boolean): (text: string) => unknown[] {
  const schema = schemaOf(side.resource);
  if (!asWritten || !schema) return (text) => JSON.parse(text) as unknown[];
  const casts = comparableCasts(schema);
  const names = schema.fields.map((field) => field.name);
  const castOf = side.columns.map((name) => casts[names.indexOf(name)]);
  return (text) =>
    (JSON.parse(text) as unknown[]).map((cell, index) => {
      const cast = castOf[index];
      return cast ? cast(cell) : cell;
    });
}

type Ordered<T> = { order: number; sample: T };

/** What JoinTotals found, as it crosses from a worker thread. */
export interface JoinFound {
  counts: { added: number; removed: number; changed: number; unchanged: number };
  duplicates: { a: number; b: number };
  added: Ordered<RowSamples['added'][number]>[];
  removed: Ordered<RowSamples['removed'][number]>[];
  changed: Ordered<RowSamples['changed'][number]>[];
}

/** What the parts matched so far add up to: counts, and the first samples of each kind by place. */
export class JoinTotals {
  readonly counts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  readonly duplicates = { a: 0, b: 0 };
  readonly valuesA: (text: string) => unknown[];
  readonly valuesB: (text: string) => unknown[];
  private added: Ordered<RowSamples['added'][number]>[] = [];
  private removed: Ordered<RowSamples['removed'][number]>[] = [];
  private changed: Ordered<RowSamples['changed'][number]>[] = [];

  constructor(readonly plan: JoinPlan) {
    this.valuesA = decoder(plan.a, plan.asWritten);
    this.valuesB = decoder(plan.b, plan.asWritten);
  }

  found(): JoinFound {
    const { counts, duplicates, added, removed, changed } = this;
    return { counts, duplicates, added, removed, changed };
  }

  /** Adds what another thread's totals found. */
  merge(found: JoinFound): void {
    for (const kind of ['added', 'removed', 'changed', 'unchanged'] as const)
      this.counts[kind] += found.counts[kind];
    this.duplicates.a += found.duplicates.a;
    this.duplicates.b += found.duplicates.b;
    for (const each of found.added) this.keep('added', each.order, each.sample);
    for (const each of found.removed) this.keep('removed', each.order, each.sample);
    for (const each of found.changed) this.keep('changed', each.order, each.sample);
  }

  wants(kind: 'added' | 'removed' | 'changed', order: number): boolean {
    const list = this[kind];
    if (list.length < this.plan.limit) return true;
    return list.length > 0 && order < (list[list.length - 1]?.order ?? -1);
  }

  keep<K extends 'added' | 'removed' | 'changed'>(
    kind: K,
    order: number,
    sample: RowSamples[K][number],
  ): void {
    const list = this[kind] as Ordered<RowSamples[K][number]>[];
    list.push({ order, sample });
    // Parts come in key order, not row order: keep the first rows of the table.
    list.sort((x, y) => x.order - y.order);
    if (list.length > this.plan.limit) list.length = this.plan.limit;
  }

  rows(key: string[] | null): RowCounts {
    return { ...this.counts, key };
  }

  samples(): RowSamples {
    return {
      added: this.added.map((each) => each.sample),
      removed: this.removed.map((each) => each.sample),
      changed: this.changed.map((each) => each.sample),
    };
  }
}

/** A part's records, whole in memory, read by their offsets (no object per record). */
class PartRecords {
  readonly bytes: Buffer;
  readonly size: number;
  readonly hashes: Uint32Array;
  readonly keyStarts: Float64Array;
  /** Where each record's key ends and its values text starts. */
  readonly keyEnds: Float64Array;
  readonly ends: Float64Array;

  constructor(fd: number) {
    const bytes = readPart(fd);
    let size = 0;
    for (let at = 0; at + 4 <= bytes.length; at += 4 + bytes.readUInt32LE(at)) size++;
    this.bytes = bytes;
    this.size = size;
    this.hashes = new Uint32Array(size);
    this.keyStarts = new Float64Array(size);
    this.keyEnds = new Float64Array(size);
    this.ends = new Float64Array(size);
    for (let index = 0, at = 0; index < size; index++) {
      const start = at + 4;
      at = start + bytes.readUInt32LE(at);
      this.hashes[index] = bytes.readUInt32LE(start + 8);
      this.keyStarts[index] = start + RECORD_HEADER;
      this.keyEnds[index] = start + RECORD_HEADER + bytes.readUInt32LE(start + 12);
      this.ends[index] = at;
    }
  }

  order(index: number): number {
    return this.bytes.readDoubleLE((this.keyStarts[index] ?? 0) - RECORD_HEADER);
  }

  key(index: number): string {
    return this.bytes.toString('utf8', this.keyStarts[index], this.keyEnds[index]);
  }

  text(index: number): string {
    return this.bytes.toString('utf8', this.keyEnds[index], this.ends[index]);
  }

  /** Whether a record here and one of `other` hold the same bytes, from `from` to `to`. */
  same(
    index: number,
    other: PartRecords,
    otherIndex: number,
    from: 'keyStarts' | 'keyEnds',
    to: 'keyEnds' | 'ends',
  ): boolean {
    const start = this[from][index] ?? 0;
    const length = (this[to][index] ?? 0) - start;
    const otherStart = other[from][otherIndex] ?? 0;
    if ((other[to][otherIndex] ?? 0) - otherStart !== length) return false;
    // Short keys compare faster here than through a call into Buffer.compare.
    if (length <= 24) {
      const { bytes } = this;
      const otherBytes = other.bytes;
      for (let at = 0; at < length; at++)
        if (bytes[start + at] !== otherBytes[otherStart + at]) return false;
      return true;
    }
    return (
      this.bytes.compare(other.bytes, otherStart, otherStart + length, start, start + length) === 0
    );
  }
}

/**
 * Side a's part by key: an open-addressing table of record numbers, probed by the hash each
 * record carries and confirmed on the key's bytes, with no string made per key.
 */
class KeyIndex {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(private readonly records: PartRecords) {
    const capacity = 2 ** Math.ceil(Math.log2(Math.max(16, records.size * 2)));
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** The record of a's part with the same key as `other`'s record, or -1; added when `add`. */
  find(other: PartRecords, index: number, add: boolean): number {
    const { records, slots, mask } = this;
    const hash = other.hashes[index] ?? 0;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = (slots[slot] ?? 0) - 1;
      if (held < 0) {
        if (add) slots[slot] = index + 1;
        return -1;
      }
      if (records.hashes[held] === hash && records.same(held, other, index, 'keyStarts', 'keyEnds'))
        return held;
    }
  }
}

/** The cells that differ between two rows' comparable values. */
function changedCells(
  columns: readonly string[],
  before: readonly unknown[],
  after: readonly unknown[],
): Record<string, CellChange> | undefined {
  let cells: Record<string, CellChange> | undefined;
  for (const [index, name] of columns.entries()) {
    const from = before[index] ?? null;
    const to = after[index] ?? null;
    if (from === to || canonical(from) === canonical(to)) continue;
    (cells ??= {})[name] = { from, to };
  }
  return cells;
}

/** Matches one part of each side and adds what it found to the totals. */
export function joinPart(fdA: number, fdB: number, totals: JoinTotals): void {
  const { plan } = totals;
  const a = new PartRecords(fdA);
  const b = new PartRecords(fdB);
  const { counts, duplicates } = totals;
  const asObject = (values: readonly unknown[]) =>
    Object.fromEntries(plan.columns.map((name, index) => [name, values[index] ?? null]));
  const valuesOf = (records: PartRecords, index: number, decode: (text: string) => unknown[]) =>
    plan.keyed ? decode(records.text(index)) : (JSON.parse(records.key(index)) as unknown[]);

  // Side a by key: each key's first record, and how many of its rows b has not matched yet
  // (one per key; as many as the row repeats when rows are matched whole).
  const index = new KeyIndex(a);
  const left = new Uint32Array(a.size);
  for (let at = 0; at < a.size; at++) {
    const first = index.find(a, at, true);
    if (first < 0) left[at] = 1;
    else if (plan.keyed) duplicates.a++;
    else left[first] = (left[first] ?? 0) + 1;
  }

  // b's keys not in a, to tell a key repeated among added rows.
  const added = plan.keyed ? new KeyIndex(b) : undefined;
  for (let at = 0; at < b.size; at++) {
    const found = index.find(b, at, false);
    if (found >= 0 && (left[found] ?? 0) > 0) {
      left[found] = (left[found] ?? 0) - 1;
      if (a.same(found, b, at, 'keyEnds', 'ends')) {
        counts.unchanged++;
        continue;
      }
      const order = b.order(at);
      if (!plan.asWritten && !totals.wants('changed', order)) {
        counts.changed++;
        continue;
      }
      const values = valuesOf(b, at, totals.valuesB);
      const cells = changedCells(plan.columns, valuesOf(a, found, totals.valuesA), values);
      if (!cells) {
        counts.unchanged++;
        continue;
      }
      counts.changed++;
      if (totals.wants('changed', order)) {
        const key = Object.fromEntries(
          plan.keyAt.map((column) => [plan.columns[column] ?? '', values[column] ?? null]),
        );
        totals.keep('changed', order, { key, cells });
      }
      continue;
    }
    if (added && (found >= 0 || added.find(b, at, true) >= 0)) {
      duplicates.b++;
      continue;
    }
    counts.added++;
    const order = b.order(at);
    if (totals.wants('added', order))
      totals.keep('added', order, asObject(valuesOf(b, at, totals.valuesB)));
  }

  for (let at = 0; at < a.size; at++) {
    const unmatched = left[at] ?? 0;
    if (unmatched === 0) continue;
    counts.removed += unmatched;
    const order = a.order(at);
    if (totals.wants('removed', order))
      totals.keep('removed', order, asObject(valuesOf(a, at, totals.valuesA)));
  }
}
