/**
 * Hash tables from keys to the row a key was first seen on, kept in typed arrays and byte
 * pages rather than in a JavaScript Map: a Map holds at most 2^24 entries and costs 50 to
 * 80 bytes an entry before the key itself, and a string cut from a decoded chunk keeps the
 * whole chunk alive. Each table is split into segments by hash, so that growing one copies
 * a sixteenth of the table, not all of it.
 */
import { BLOCK, rawText, Utf8Pages, type RawPages } from './utf8-pages.js';

const SEGMENTS = 16;
const SEGMENT_BITS = 4;
const MAX_LOAD = 0.75;
const EMPTY = NaN;

/** Keeps sequential keys in sequential slots (ids mostly are), and spreads strided ones. */
export function numberHash(key: number): number {
  const low = (key | 0) ^ ((key / 4294967296) | 0);
  return (low ^ (low >>> 11) ^ (low >>> 22)) >>> 0;
}

const INT32_EMPTY = -(2 ** 31);

function isInt32Key(key: number): boolean {
  return (key | 0) === key && key !== INT32_EMPTY && !Object.is(key, -0);
}

/**
 * Keys are 32-bit integers while every key is one (8 bytes a slot with the row); the first
 * key that is not turns the segment into 64-bit floats (12 bytes a slot).
 */
class NumberSegment {
  keys: Int32Array | Float64Array = new Int32Array(64).fill(INT32_EMPTY);
  rows = new Uint32Array(64);
  size = 0;

  firstRowOrAdd(key: number, hash: number, row: number): number | undefined {
    if (this.keys instanceof Int32Array && !isInt32Key(key)) this.rebuild(this.keys.length, true);
    const keys = this.keys;
    const empty = keys instanceof Int32Array ? INT32_EMPTY : EMPTY;
    const mask = keys.length - 1;
    let slot = hash & mask;
    for (;;) {
      const found = keys[slot] as number;
      if (found === key) return this.rows[slot];
      if (found === empty || found !== found) break;
      slot = (slot + 1) & mask;
    }
    keys[slot] = key;
    this.rows[slot] = row;
    if (++this.size > keys.length * MAX_LOAD) this.rebuild(keys.length * 2, false);
    return undefined;
  }

  /** Grows the segment to `capacity` slots at once, when it has fewer. */
  reserve(capacity: number): void {
    if (capacity > this.keys.length) this.rebuild(capacity, false);
  }

  find(key: number, hash: number): number | undefined {
    const keys = this.keys;
    if (keys instanceof Int32Array && !isInt32Key(key)) return undefined;
    const empty = keys instanceof Int32Array ? INT32_EMPTY : EMPTY;
    const mask = keys.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const found = keys[slot] as number;
      if (found === key) return this.rows[slot];
      if (found === empty || found !== found) return undefined;
    }
  }

  private rebuild(capacity: number, toFloat: boolean): void {
    const oldKeys = this.keys;
    const oldRows = this.rows;
    const floats = toFloat || oldKeys instanceof Float64Array;
    const keys = floats
      ? new Float64Array(capacity).fill(EMPTY)
      : new Int32Array(capacity).fill(INT32_EMPTY);
    const rows = new Uint32Array(capacity);
    const mask = capacity - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const key = oldKeys[i] as number;
      if (key !== key || (oldKeys instanceof Int32Array && key === INT32_EMPTY)) continue;
      let slot = (numberHash(key) >>> SEGMENT_BITS) & mask;
      for (;;) {
        const there = keys[slot] as number;
        if (there !== there || (!floats && there === INT32_EMPTY)) break;
        slot = (slot + 1) & mask;
      }
      keys[slot] = key;
      rows[slot] = oldRows[i] as number;
    }
    this.keys = keys;
    this.rows = rows;
  }

  get bytes(): number {
    return this.keys.byteLength + this.rows.byteLength;
  }

  *entries(): Generator<[number, number]> {
    const keys = this.keys;
    const ints = keys instanceof Int32Array;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot] as number;
      if (key !== key || (ints && key === INT32_EMPTY)) continue;
      yield [key, this.rows[slot] as number];
    }
  }
}

/** Numbers (not NaN) to the first row each was seen on: 8 or 12 bytes a slot, at most 3/4 full. */
export class NumberRowTable {
  private readonly segments = Array.from({ length: SEGMENTS }, () => new NumberSegment());
  /** The smallest and largest key held: most keys outside them need no lookup. */
  private low = Infinity;
  private high = -Infinity;

  /** Stores the key if it is new and returns undefined; otherwise returns its first row. */
  firstRowOrAdd(key: number, row: number): number | undefined {
    if (key < this.low) this.low = key;
    if (key > this.high) this.high = key;
    const hash = numberHash(key);
    const segment = this.segments[hash & (SEGMENTS - 1)] as NumberSegment;
    return segment.firstRowOrAdd(key, hash >>> SEGMENT_BITS, row);
  }

  /**
   * Makes room for about `keys` keys at once, in at most `maxBytes`: a table grown slot
   * by slot doubles each segment again and again, and each step copies it.
   */
  reserve(keys: number, maxBytes: number): void {
    let capacity = 64;
    while (capacity * MAX_LOAD * SEGMENTS < keys) capacity *= 2;
    const slotBytes = (this.segments[0]?.keys.BYTES_PER_ELEMENT ?? 4) + 4;
    if (capacity * SEGMENTS * slotBytes > maxBytes) return;
    for (const segment of this.segments) segment.reserve(capacity);
  }

  /** The first row of a key that is there, without adding one that is not. */
  find(key: number): number | undefined {
    const hash = numberHash(key);
    return (this.segments[hash & (SEGMENTS - 1)] as NumberSegment).find(key, hash >>> SEGMENT_BITS);
  }

  get size(): number {
    return this.segments.reduce((sum, segment) => sum + segment.size, 0);
  }

  get bytes(): number {
    return this.segments.reduce((sum, segment) => sum + segment.bytes, 0);
  }

  /** Every key with its first row, in no particular order. */
  *entries(): Generator<[number, number]> {
    for (const segment of this.segments) yield* segment.entries();
  }

  /**
   * For each key held in `slots` that this table holds too: its row there, then here. One
   * loop over the slots rather than a generator and a lookup per key: the first range's
   * worker waits on this for every key of the second range. Keys outside this table's
   * smallest and largest are not looked up, and slots whose keys all are are not read: the
   * second range's ids, in a table in their order, all lie above the first range's.
   */
  shared(slots: readonly NumberSlots[], visit: (row: number, first: number) => void): void {
    const { low, high } = this;
    for (const { keys, rows, low: theirLow, high: theirHigh } of slots) {
      if (theirLow > high || theirHigh < low) continue;
      const ints = keys instanceof Int32Array;
      for (let slot = 0; slot < keys.length; slot++) {
        const key = keys[slot] as number;
        if (key !== key || (ints && key === INT32_EMPTY) || key < low || key > high) continue;
        const hash = numberHash(key);
        const first = (this.segments[hash & (SEGMENTS - 1)] as NumberSegment).find(
          key,
          hash >>> SEGMENT_BITS,
        );
        if (first !== undefined) visit(rows[slot] as number, first);
      }
    }
  }

  /** The table's slots as they are, empty ones included: cheap to send to another thread. */
  slots(): NumberSlots[] {
    const { low, high } = this;
    return this.segments.map((segment) => ({ keys: segment.keys, rows: segment.rows, low, high }));
  }
}

/** The slots of one segment of a NumberRowTable, and the smallest and largest key it holds. */
export interface NumberSlots {
  keys: Int32Array | Float64Array;
  rows: Uint32Array;
  /** The smallest and largest key of the whole table: no key of the segment lies outside. */
  low: number;
  high: number;
}

/** FNV-1a over the UTF-16 code units, mixed at the end so that short keys spread too. */
export function stringHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return (hash ^ (hash >>> 12)) >>> 0;
}

/** The keys' bytes, and per key its hash and first row. */
class Entries extends Utf8Pages {
  private readonly hashes: Uint32Array[] = [];
  private readonly rows: Uint32Array[] = [];

  /** Keeps the staged bytes as a new entry. */
  add(length: number, hash: number, row: number): number {
    const index = this.commit(length);
    const at = index & (BLOCK - 1);
    if (at === 0) {
      this.hashes.push(new Uint32Array(BLOCK));
      this.rows.push(new Uint32Array(BLOCK));
    }
    (this.hashes.at(-1) as Uint32Array)[at] = hash;
    (this.rows.at(-1) as Uint32Array)[at] = row;
    return index;
  }

  hashOf(index: number): number {
    return (this.hashes[index >>> 16] as Uint32Array)[index & (BLOCK - 1)] as number;
  }

  rowOf(index: number): number {
    return (this.rows[index >>> 16] as Uint32Array)[index & (BLOCK - 1)] as number;
  }

  override get bytes(): number {
    return super.bytes + this.hashes.length * BLOCK * 8;
  }

  dump(): StringDump {
    return { ...this.raw(), hashes: [...this.hashes], rows: [...this.rows], count: this.count };
  }
}

/**
 * A string table's keys as stored (UTF-8 pages, hashes, first rows), sent to another thread
 * by moving its buffers: turned into heap strings, 10 million keys of a range took some
 * 1.5 GB on each side.
 */
export interface StringDump extends RawPages {
  hashes: Uint32Array[];
  rows: Uint32Array[];
  count: number;
}

/** The buffers of a string dump, to be moved rather than copied to another thread. */
export function stringDumpBuffers(dump: StringDump): ArrayBuffer[] {
  return [...dump.pages, ...dump.starts, ...dump.lengths, ...dump.hashes, ...dump.rows]
    .map((array) => array.buffer)
    .filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer);
}

class StringSegment {
  /** Entry index + 1 in each slot; 0 is empty. */
  slots = new Uint32Array(64);
  size = 0;

  constructor(private readonly entries: Entries) {}

  /** The slot holding the staged key (its entry + 1 in `slots`), or the empty slot for it. */
  private probe(hash: number, length: number): number {
    const entries = this.entries;
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = (hash >>> SEGMENT_BITS) & mask;
    for (;;) {
      const found = slots[slot] as number;
      if (found === 0) return slot;
      if (entries.hashOf(found - 1) === hash && entries.equalsStaged(found - 1, length))
        return slot;
      slot = (slot + 1) & mask;
    }
  }

  find(key: string, hash: number): number | undefined {
    return this.findStaged(hash, this.entries.stage(key));
  }

  /** The first row of the key whose bytes were just staged, with its hash. */
  findStaged(hash: number, length: number): number | undefined {
    const found = this.slots[this.probe(hash, length)] as number;
    return found === 0 ? undefined : this.entries.rowOf(found - 1);
  }

  firstRowOrAdd(key: string, hash: number, row: number): number | undefined {
    const length = this.entries.stage(key);
    const slot = this.probe(hash, length);
    const found = this.slots[slot] as number;
    if (found !== 0) return this.entries.rowOf(found - 1);
    this.slots[slot] = this.entries.add(length, hash, row) + 1;
    if (++this.size > this.slots.length * MAX_LOAD) this.grow();
    return undefined;
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Uint32Array(old.length * 2);
    const mask = slots.length - 1;
    for (const found of old) {
      if (found === 0) continue;
      let slot = (this.entries.hashOf(found - 1) >>> SEGMENT_BITS) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = found;
    }
    this.slots = slots;
  }
}

/**
 * Strings to the first row each was seen on: a key costs its UTF-8 bytes, 20 bytes of entry
 * and 4 to 8 bytes of slot.
 */
export class StringRowTable {
  private readonly entries = new Entries();
  private readonly segments = Array.from(
    { length: SEGMENTS },
    () => new StringSegment(this.entries),
  );

  firstRowOrAdd(key: string, row: number): number | undefined {
    const hash = stringHash(key);
    return (this.segments[hash & (SEGMENTS - 1)] as StringSegment).firstRowOrAdd(key, hash, row);
  }

  /** The first row of a key that is there, without adding one that is not. */
  find(key: string): number | undefined {
    const hash = stringHash(key);
    return (this.segments[hash & (SEGMENTS - 1)] as StringSegment).find(key, hash);
  }

  get size(): number {
    return this.entries.count;
  }

  get bytes(): number {
    return this.entries.bytes + this.segments.reduce((sum, each) => sum + each.slots.byteLength, 0);
  }

  /** The keys as stored, for another thread: see StringDump. */
  dump(): StringDump {
    return this.entries.dump();
  }

  /**
   * For each key of a dump that this table holds too: its row there, then here. Compared as
   * bytes, with the dump's own hashes: no key becomes a string.
   */
  shared(dump: StringDump, visit: (row: number, first: number) => void): void {
    for (let index = 0; index < dump.count; index++) {
      const { page, offset, length } = rawText(dump, index);
      const hash = (dump.hashes[index >>> 16] as Uint32Array)[index & (BLOCK - 1)] as number;
      const staged = this.entries.stageBytes(page, offset, length);
      const first = (this.segments[hash & (SEGMENTS - 1)] as StringSegment).findStaged(
        hash,
        staged,
      );
      if (first !== undefined)
        visit((dump.rows[index >>> 16] as Uint32Array)[index & (BLOCK - 1)] as number, first);
    }
  }

  /** Every key with its first row, in the order they were added. */
  *rows(): Generator<[string, number]> {
    for (let index = 0; index < this.entries.count; index++)
      yield [this.entries.text(index), this.entries.rowOf(index)];
  }
}

/** A set of strings with the same layout, for the keys a foreign key may point at. */
export class StringKeySet {
  private readonly table = new StringRowTable();

  add(key: string): void {
    this.table.firstRowOrAdd(key, 0);
  }

  has(key: string): boolean {
    return this.table.find(key) !== undefined;
  }

  *keys(): Generator<string> {
    for (const [key] of this.table.rows()) yield key;
  }

  get size(): number {
    return this.table.size;
  }

  get bytes(): number {
    return this.table.bytes;
  }
}
