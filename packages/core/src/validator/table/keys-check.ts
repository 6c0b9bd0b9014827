import { reportError } from '../report/errors.js';
import type { ReportError } from '../report/types.js';
import { tupleKey } from '../schema/keys.js';
import { INVALID } from '../schema/types/index.js';
import {
  numberHash,
  NumberRowTable,
  StringRowTable,
  stringDumpBuffers,
  stringHash,
  type NumberSlots,
  type StringDump,
} from './key-tables.js';
import { SPILL_PARTS, spillPart, SpillFiles } from './spill.js';
import type { LookupKeys } from './lookup-keys.js';

/** A set of key tuples read from a referenced resource. */
export interface ForeignKeyCheck {
  fields: number[];
  fieldNames: string[];
  referenceName: string;
  referenceFieldNames: string[];
  lookup: LookupKeys;
}

interface RowContext {
  rowNumber: number;
  values: readonly unknown[];
  cells: () => string[];
  fieldRaw: (field: number) => string;
}

const isAbsent = (value: unknown): boolean => value === null || value === INVALID;

/** A key as the tables hold it: a number, a string, or other values as tagged text. */
type Key =
  { kind: typeof NUMBER; value: number } | { kind: typeof STRING | typeof TAGGED; value: string };
const NUMBER = 0;
const STRING = 1;
const TAGGED = 2;

/** A repeated key found once the table is read, from keys spilled to disk. */
export interface LateRepeat {
  first: number;
  rowNumber: number;
  cells: string[];
}

/** A tracker's keys with the row each was first seen on, as sent from one worker to another. */
export interface KeyDump {
  numbers: NumberSlots[];
  strings: StringDump | undefined;
  tagged: StringDump | undefined;
}

/** The buffers of a dump, to be moved rather than copied to another thread. */
export function dumpBuffers(dump: KeyDump): ArrayBuffer[] {
  return [
    ...dump.numbers
      .flatMap(({ keys, rows }) => [keys.buffer, rows.buffer])
      .filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer),
    ...(dump.strings ? stringDumpBuffers(dump.strings) : []),
    ...(dump.tagged ? stringDumpBuffers(dump.tagged) : []),
  ];
}

/** Tracks unique values, primary and unique keys across rows. */
export class KeyTracker {
  private numbers: NumberRowTable | undefined;
  private strings: StringRowTable | undefined;
  /** Tuples and values of other types, as tagged text (so that 1 and "1" differ). */
  private tagged: StringRowTable | undefined;
  private spilled: SpillFiles | undefined;

  constructor(
    readonly fields: number[],
    private readonly skipIfAnyNull: boolean,
    /** Put before the note of a repeated key: names a multi-field unique key. */
    readonly label = '',
  ) {}

  /**
   * The row where this key was seen first, or undefined; null when the key is not checked.
   * Once spilled, repeats are found by `lateRepeats` instead, with `cells` kept for them.
   */
  check(
    values: readonly unknown[],
    rowNumber: number,
    cells?: () => string[],
  ): number | undefined | null {
    const key = this.keyOf(values);
    if (key === null) return null;
    if (this.spilled) {
      this.spilled.append(partOf(key), encode(key, rowNumber, cells?.() ?? []));
      return undefined;
    }
    return this.firstRowOrAdd(key, rowNumber);
  }

  /**
   * `check` of a one-field key that is a number, while the keys are in memory: true when the
   * key was not seen before and is now held; false, with nothing held, for `check` to decide.
   */
  heldNewNumber(values: readonly unknown[], rowNumber: number): boolean {
    if (this.spilled || this.fields.length !== 1) return false;
    const value = values[this.fields[0] ?? 0];
    if (typeof value !== 'number' || value !== value) return false;
    return (this.numbers ??= new NumberRowTable()).firstRowOrAdd(value, rowNumber) === undefined;
  }

  /**
   * Told that about `keys` more keys will come: a table of numbers, the only kind held so
   * far, makes room for them at once in at most `maxBytes`.
   */
  expectKeys(keys: number, maxBytes: number): void {
    if (this.spilled || this.strings || this.tagged) return;
    this.numbers?.reserve(this.numbers.size + keys, maxBytes);
  }

  private keyOf(values: readonly unknown[]): Key | null {
    const fields = this.fields;
    if (fields.length === 1) {
      const value = values[fields[0] ?? 0];
      if (isAbsent(value)) return null;
      if (typeof value === 'number' && value === value) return { kind: NUMBER, value };
      if (typeof value === 'string') return { kind: STRING, value };
      return { kind: TAGGED, value: tupleKey([value]) };
    }
    const tuple = fields.map((index) => values[index]);
    const absent = tuple.filter(isAbsent).length;
    if (absent === tuple.length || (this.skipIfAnyNull && absent > 0)) return null;
    return {
      kind: TAGGED,
      value: tupleKey(tuple.map((value) => (value === INVALID ? null : value))),
    };
  }

  private firstRowOrAdd(key: Key, rowNumber: number): number | undefined {
    if (key.kind === NUMBER)
      return (this.numbers ??= new NumberRowTable()).firstRowOrAdd(key.value, rowNumber);
    if (key.kind === STRING)
      return (this.strings ??= new StringRowTable()).firstRowOrAdd(key.value, rowNumber);
    return (this.tagged ??= new StringRowTable()).firstRowOrAdd(key.value, rowNumber);
  }

  /** Every key held in memory, with its first row. */
  dump(): KeyDump {
    return {
      numbers: this.numbers?.slots() ?? [],
      strings: this.strings?.dump(),
      tagged: this.tagged?.dump(),
    };
  }

  /** For each key of `dump` this tracker holds too: the dump's row, then this tracker's. */
  sharedWith(dump: KeyDump): [number, number][] {
    const shared: [number, number][] = [];
    const visit = (row: number, first: number): number => shared.push([row, first]);
    this.numbers?.shared(dump.numbers, visit);
    if (dump.strings) this.strings?.shared(dump.strings, visit);
    if (dump.tagged) this.tagged?.shared(dump.tagged, visit);
    return shared;
  }

  /** Bytes the tracker's tables take in memory. */
  get bytes(): number {
    return (this.numbers?.bytes ?? 0) + (this.strings?.bytes ?? 0) + (this.tagged?.bytes ?? 0);
  }

  get isSpilled(): boolean {
    return this.spilled !== undefined;
  }

  /** Moves the keys seen so far to disk, and every later key too: memory is freed. */
  spill(): void {
    if (this.spilled) return;
    const files = (this.spilled = new SpillFiles());
    const keep = (key: Key, row: number): void => {
      files.append(partOf(key), encode(key, row, []));
    };
    for (const [value, row] of this.numbers?.entries() ?? []) keep({ kind: NUMBER, value }, row);
    for (const [value, row] of this.strings?.rows() ?? []) keep({ kind: STRING, value }, row);
    for (const [value, row] of this.tagged?.rows() ?? []) keep({ kind: TAGGED, value }, row);
    this.numbers = this.strings = this.tagged = undefined;
  }

  /**
   * After the last row: the repeats among spilled keys, one part of the keys in memory at
   * a time. The spill files are removed afterwards, and on `discard`.
   */
  *lateRepeats(): Generator<LateRepeat> {
    const files = this.spilled;
    if (!files) return;
    try {
      for (let part = 0; part < SPILL_PARTS; part++) {
        for (const record of files.records(part)) {
          const { key, rowNumber, cells } = decode(record);
          const first = this.firstRowOrAdd(key, rowNumber);
          if (first !== undefined) yield { first, rowNumber, cells: cells() };
        }
        this.numbers = this.strings = this.tagged = undefined;
      }
    } finally {
      this.discard();
    }
  }

  discard(): void {
    this.spilled?.remove();
    this.spilled = undefined;
  }
}

function partOf(key: Key): number {
  return spillPart(key.kind === NUMBER ? numberHash(key.value) : stringHash(key.value));
}

/** [kind u8][row u32][number f64 | text length u32, text][cells as JSON] */
function encode(key: Key, rowNumber: number, cells: string[]): Buffer {
  const text = key.kind === NUMBER ? '' : key.value;
  const cellsJson = cells.length > 0 ? JSON.stringify(cells) : '';
  const textBytes = Buffer.byteLength(text);
  const head = key.kind === NUMBER ? 13 : 9 + textBytes;
  const record = Buffer.allocUnsafe(head + Buffer.byteLength(cellsJson));
  record.writeUInt8(key.kind, 0);
  record.writeUInt32LE(rowNumber, 1);
  if (key.kind === NUMBER) record.writeDoubleLE(key.value, 5);
  else {
    record.writeUInt32LE(textBytes, 5);
    record.write(text, 9, 'utf8');
  }
  record.write(cellsJson, head, 'utf8');
  return record;
}

function decode(record: Buffer): { key: Key; rowNumber: number; cells: () => string[] } {
  const kind = record.readUInt8(0);
  const rowNumber = record.readUInt32LE(1);
  let key: Key;
  let head: number;
  if (kind === NUMBER) {
    key = { kind, value: record.readDoubleLE(5) };
    head = 13;
  } else {
    const length = record.readUInt32LE(5);
    key = {
      kind: kind === STRING ? STRING : TAGGED,
      value: record.toString('utf8', 9, 9 + length),
    };
    head = 9 + length;
  }
  const json = record.toString('utf8', head);
  return { key, rowNumber, cells: () => (json === '' ? [] : (JSON.parse(json) as string[])) };
}

/** The error for a primary key that is null (first is null) or seen before at row `first`. */
export function primaryKeyError(
  first: number | null,
  cells: string[],
  rowNumber: number,
): ReportError {
  const note =
    first === null
      ? 'cells composing the primary keys are all "None"'
      : `the same as in row "${String(first)}"`;
  return reportError('primary-key', note, { cells, rowNumber });
}

/** The key a row points at through a foreign key, or undefined when it points at none. */
export function foreignKeyOf(
  check: ForeignKeyCheck,
  values: readonly unknown[],
): string | undefined {
  const tuple = check.fields.map((index) => values[index]);
  if (tuple.every((value) => value === null) || tuple.includes(INVALID)) return undefined;
  return tupleKey(tuple);
}

export function foreignKeyError(check: ForeignKeyCheck, row: RowContext): ReportError | undefined {
  const key = foreignKeyOf(check, row.values);
  if (key === undefined || check.lookup.has(key)) return undefined;
  return foreignKeyMissing(
    check,
    row.rowNumber,
    row.cells(),
    check.fields.map((index) => row.fieldRaw(index)),
  );
}

export function foreignKeyMissing(
  check: ForeignKeyCheck,
  rowNumber: number,
  cells: string[],
  fieldCells: string[],
): ReportError {
  const note =
    `for "${check.fieldNames.join(', ')}": values "${fieldCells.join(', ')}" not found in the lookup table ` +
    `"${check.referenceName}" as "${check.referenceFieldNames.join(', ')}"`;
  return reportError('foreign-key', note, {
    cells,
    rowNumber,
    fieldNames: check.fieldNames,
    fieldCells,
    referenceName: check.referenceName,
    referenceFieldNames: check.referenceFieldNames,
  });
}
