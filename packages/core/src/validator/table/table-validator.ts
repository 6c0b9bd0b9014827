import { reportError } from '../report/errors.js';
import type { ReportError } from '../report/types.js';
import { SheetDate, UnfitCell } from '../sheets/cells.js';
import type { TaskCollector } from '../report/task.js';
import type { CompiledField } from '../schema/field.js';
import { INVALID } from '../schema/types/index.js';
import type { ConstraintCheck } from '../schema/constraints.js';
import { mapHeader, positionalMap, type ColumnMap, type FieldsMatch } from './header.js';
import { describeBytes } from '../../text/bytes.js';
import { spillPartOf } from './lookup-keys.js';
import { SPILL_PARTS, SpillFiles } from './spill.js';
import type { TableRowSink } from './row-sink.js';
import { spanCells } from './csv-parser.js';
import {
  foreignKeyError,
  foreignKeyMissing,
  foreignKeyOf,
  KeyTracker,
  primaryKeyError,
  type ForeignKeyCheck,
} from './keys-check.js';

/** A row the dialect marks as a comment: by its number, or by its first character. */
export function isCommentRow(
  layout: TableLayout,
  rowNumber: number,
  cells: readonly unknown[],
): boolean {
  if (layout.commentRows.has(rowNumber)) return true;
  return (
    layout.commentChar !== undefined &&
    typeof cells[0] === 'string' &&
    cells[0].startsWith(layout.commentChar)
  );
}

/**
 * Where an error stands among the errors of its row, for a merge that must put it back in
 * the order one pass gives: cell and shape errors (phase -1), then one unique tracker after
 * another (its index), then the primary key (the number of unique trackers). For a repeated
 * key, `tracker` and `first` give the key's table and the row it was first seen on.
 */
export interface ErrorPlace {
  rows: number;
  phase: number;
  tracker: number;
  first: number;
}

/** The range validator's keys outgrew its memory: the first range's validator reads on alone. */
export class RangeKeysTooLarge extends Error {
  override readonly name = 'RangeKeysTooLarge';
}

export interface TableLayout {
  headerRows: readonly number[];
  headerJoin: string;
  commentChar: string | undefined;
  commentRows: ReadonlySet<number>;
}

export interface TableKeys {
  primaryKey: number[];
  uniqueKeys: number[][];
  foreignKeys: ForeignKeyCheck[];
}

/** Memory for unique and primary keys before they are checked on disk: 1 GB. */
export const DEFAULT_KEY_MEMORY = 1024 * 1024 * 1024;

/** Every this many rows with keys, the key tables are measured against their budget. */
const BUDGET_ROWS = 65_536;
/**
 * The first of those rows: early, since V8 optimizes the row loop with what its calls did
 * so far (counted once a function has run a few times), and a call it had not seen made
 * would throw the optimized code away.
 */
const FIRST_BUDGET_ROW = 100;

/** Text of a raw cell as the report shows it. */
export function cellText(raw: unknown): string {
  if (raw === null || raw === undefined) return '';
  if (typeof raw === 'string') return raw;
  if (raw instanceof SheetDate) return raw.toString();
  if (raw instanceof UnfitCell) return raw.text;
  if (typeof raw === 'number' || typeof raw === 'boolean' || typeof raw === 'bigint')
    return String(raw);
  return JSON.stringify(raw) ?? '';
}

/**
 * Checks a table record by record: header labels, then each row's cells against the
 * schema. Only the key trackers grow with the table.
 */
/** The rows in the `size - read` bytes left, at the rate of `rows` in the `read` bytes read. */
export function rowsLeft(rows: number, read: number, size: number): number {
  return read > 0 ? Math.ceil((rows * Math.max(0, size - read)) / read) : 0;
}

export class TableValidator {
  rowNumber = 0;
  rows = 0;
  /** Records that are not comments: header rows are counted among these. */
  private contentRows = 0;
  private readonly headerEnd: number;
  private readonly headerParts: string[][] = [];
  private readonly headerRowNumbers: number[] = [];
  private map: ColumnMap | undefined;
  private readonly values: unknown[];
  private readonly unique: KeyTracker[];
  private readonly primary: KeyTracker | undefined;
  private readonly primaryShared: boolean;
  private keyedRows = 0;
  private spillNoted = false;
  /** While a second range runs: this range's share of the key memory, and what to do past it. */
  private share: { bytes: number; over: () => void } | undefined;
  private readonly deferred = new Map<ForeignKeyCheck, SpillFiles>();
  private stopped = false;
  private readonly hasKeys: boolean;
  /** The table's one key tracker, when it has one and no foreign keys: see `newKeyHeld`. */
  private readonly onlyTracker: KeyTracker | undefined;
  /** Per field: whether a check or a key reads its value, so that even a text is cast. */
  private readonly valueRead: boolean[];
  /**
   * Per field: whether a key reads its value once the row's checks pass. A row of spans keeps
   * only those: nothing else reads the others before the next row overwrites them.
   */
  private readonly valueKept: boolean[];
  /** False where every record needs its cells: comment rows, or a copy written as it goes. */
  private readonly spansTaken: boolean;

  constructor(
    private readonly fields: readonly CompiledField[],
    private readonly layout: TableLayout,
    private readonly keys: TableKeys,
    private readonly fieldsMatch: FieldsMatch,
    private readonly collector: TaskCollector,
    /** Bytes the key tables may take before they go to disk. */
    private readonly keyMemory = DEFAULT_KEY_MEMORY,
    /** Where each row goes once checked, for a copy written in the same pass. */
    private readonly sink?: TableRowSink,
    /**
     * Set when this validator checks the second byte range of a table: what the first range's
     * validator needs to merge its findings (see table/ranges.ts).
     */
    private readonly places?: ErrorPlace[],
  ) {
    this.headerEnd = layout.headerRows.length > 0 ? Math.max(...layout.headerRows) : 0;
    if (this.headerEnd === 0) this.map = positionalMap(fields.length);
    this.values = new Array<unknown>(fields.length).fill(null);
    const uniqueFields = fields.flatMap((field, index) =>
      field.unique ? [new KeyTracker([index], true)] : [],
    );
    const uniqueKeys = keys.uniqueKeys.map((indexes) => {
      const names = indexes.map((index) => fields[index]?.name ?? '').join(', ');
      return new KeyTracker(indexes, true, `unique key "${names}" is `);
    });
    this.unique = [...uniqueFields, ...uniqueKeys];
    // A one-column primary key that is also unique shares the unique column's table: the
    // same keys, checked once, stored once.
    const [only, ...more] = keys.primaryKey;
    this.primary =
      only === undefined
        ? undefined
        : ((more.length === 0
            ? uniqueFields.find((tracker) => tracker.fields[0] === only)
            : undefined) ?? new KeyTracker(keys.primaryKey, false));
    this.primaryShared = this.primary !== undefined && this.unique.includes(this.primary);
    this.hasKeys =
      this.unique.length > 0 || this.primary !== undefined || keys.foreignKeys.length > 0;
    const trackers = this.trackers;
    this.onlyTracker =
      trackers.length === 1 && keys.foreignKeys.length === 0 ? trackers[0] : undefined;
    const keyFields = new Set([
      ...keys.primaryKey,
      ...keys.uniqueKeys.flat(),
      ...keys.foreignKeys.flatMap((check) => check.fields),
    ]);
    this.valueRead = fields.map(
      (field, index) => field.checks.length > 0 || field.unique || keyFields.has(index),
    );
    this.valueKept = fields.map((field, index) => field.unique || keyFields.has(index));
    this.spansTaken =
      sink === undefined && layout.commentChar === undefined && layout.commentRows.size === 0;
  }

  get open(): boolean {
    return !this.stopped && this.collector.open;
  }

  get labels(): string[] {
    return this.collector.labels;
  }

  record(cells: readonly unknown[], sheetRow?: number): void {
    // Past the error limit nothing more is checked, whatever else the current chunk holds.
    if (!this.collector.open) return;
    const rowNumber = (this.rowNumber = sheetRow ?? this.rowNumber + 1);
    const layout = this.layout;
    if (isCommentRow(layout, rowNumber, cells)) return;
    const position = ++this.contentRows;
    if (position <= this.headerEnd) {
      if (layout.headerRows.includes(position)) {
        this.headerParts.push(cells.map(cellText));
        this.headerRowNumbers.push(rowNumber);
      }
      if (position === this.headerEnd) this.readHeader();
      return;
    }
    const map = this.map ?? this.readHeader();
    if (this.stopped) return;
    this.rows++;
    this.row(cells, rowNumber, map);
    this.sink?.row(cells, this.values, map.columns);
  }

  /**
   * A record given as where its cells lie in a chunk (see CsvParser). A row of the header's
   * width whose every cell passes its checks is checked there, with no string made of its
   * cells. Any other record takes `record`, the one path that reports: the report is the
   * same whichever way a record comes.
   */
  spans(text: string, bounds: Int32Array, count: number): void {
    if (!this.collector.open) return;
    const map = this.map;
    if (
      !this.spansTaken ||
      this.stopped ||
      map === undefined ||
      count !== map.width ||
      !this.spanRow(text, bounds, map.columns)
    ) {
      this.record(spanCells(text, bounds, count));
      return;
    }
    const rowNumber = ++this.rowNumber;
    this.contentRows++;
    this.rows++;
    if (!this.hasKeys || this.newKeyHeld(rowNumber)) return;
    let cells: string[] | undefined;
    this.checkKeys(() => (cells ??= spanCells(text, bounds, count)), rowNumber, map);
  }

  /**
   * `checkKeys` for the row of most tables with a key, a number seen for the first time in the
   * table's one key and no foreign key: true when the key is now held, with nothing to report.
   * It makes no closure and no key object, where `checkKeys` made three closures and a key
   * for each row, all for the young generation's collections. Any other row (a repeat, a row
   * where the key budget is checked) returns false for `checkKeys`, which finds a repeat again
   * as the tables leave it.
   */
  private newKeyHeld(rowNumber: number): boolean {
    const tracker = this.onlyTracker;
    if (tracker === undefined || (this.keyedRows + 1) % BUDGET_ROWS === FIRST_BUDGET_ROW)
      return false;
    if (!tracker.heldNewNumber(this.values, rowNumber)) return false;
    this.keyedRows++;
    return true;
  }

  /**
   * Casts and checks a row's cells where they lie; false, with nothing reported, when a
   * cell fails or the row may be blank, for `record` to report it.
   */
  private spanRow(text: string, bounds: Int32Array, columns: readonly number[]): boolean {
    const fields = this.fields;
    const values = this.values;
    const valueRead = this.valueRead;
    const valueKept = this.valueKept;
    let present = 0;
    for (let index = 0; index < fields.length; index++) {
      const field = fields[index] as CompiledField;
      const column = columns[index] as number;
      if (column < 0) {
        values[index] = null;
        continue;
      }
      const start = bounds[2 * column] as number;
      const end = bounds[2 * column + 1] as number;
      if (end - start <= field.missingMaxLength && field.missing.has(text.slice(start, end))) {
        if (field.required) return false;
        values[index] = null;
        continue;
      }
      present++;
      // A text nothing reads is left uncast: its cast cannot fail; another value nothing
      // reads is only checked, where it can be.
      if (!valueRead[index] && (field.castsToText || field.checkSpan?.(text, start, end) === true))
        continue;
      let value = field.castSpan?.(text, start, end);
      if (value === undefined) value = field.cast(text.slice(start, end));
      if (value === INVALID) return false;
      const checks = field.checks;
      for (let k = 0; k < checks.length; k++)
        if ((checks[k] as ConstraintCheck)(value) !== undefined) return false;
      if (valueKept[index]) values[index] = value;
    }
    return present > 0;
  }

  /**
   * Told about how many rows are still to come (read from the bytes read so far and the
   * bytes left): key tables of numbers make room for their keys at once, each in at most a
   * quarter of its share of the key memory, rather than doubling again and again.
   */
  expectRows(rows: number): void {
    const trackers = this.trackers.filter((tracker) => !tracker.isSpilled);
    const maxBytes = (this.share?.bytes ?? this.keyMemory) / 4 / Math.max(1, trackers.length);
    for (const tracker of trackers) tracker.expectKeys(rows, maxBytes);
  }

  /** The column map of a header read by another validator, for one that reads on after it. */
  adoptHeader(map: ColumnMap): void {
    this.map = map;
  }

  /** The header's map once read, unless it stops validation. */
  get header(): ColumnMap | undefined {
    return this.stopped ? undefined : this.map;
  }

  /** The key tables, in the order `ErrorPlace.tracker` numbers them. */
  get trackers(): KeyTracker[] {
    return this.primary && !this.primaryShared ? [...this.unique, this.primary] : this.unique;
  }

  /** The phase of a tracker's unique errors, or undefined for a primary key of its own. */
  uniquePhase(tracker: number): number | undefined {
    return tracker < this.unique.length ? tracker : undefined;
  }

  get primaryPhase(): number {
    return this.unique.length;
  }

  /** The index among `trackers` of the primary key's table, or -1 without a primary key. */
  get primaryTracker(): number {
    return this.primary ? this.trackers.indexOf(this.primary) : -1;
  }

  /** Reports a row's unique key as the repeat of an earlier row's (another range found it). */
  reportUniqueRepeat(
    tracker: number,
    first: number,
    cells: readonly unknown[],
    rowNumber: number,
  ): void {
    const keys = this.trackers[tracker];
    if (keys) this.uniqueError(keys, first, cells, rowNumber);
  }

  /** A unique key repeated: the error names its first field's cell. */
  private uniqueError(
    tracker: KeyTracker,
    first: number,
    cells: readonly unknown[],
    rowNumber: number,
    key?: Omit<ErrorPlace, 'rows'>,
  ): void {
    const index = tracker.fields[0] ?? 0;
    const note = `${tracker.label}the same as in row "${String(first)}"`;
    const raw = cells[this.map?.columns[index] ?? -1];
    this.cellError('unique-error', note, cells, rowNumber, index, raw, key);
  }

  reportPrimaryRepeat(first: number, cells: readonly unknown[], rowNumber: number): void {
    this.add(primaryKeyError(first, cells.map(cellText), rowNumber));
  }

  /** Adds an error another validator found, as it found it. */
  addFound(error: ReportError): void {
    this.add(error);
  }

  private add(error: ReportError, key?: Omit<ErrorPlace, 'rows'>): void {
    const places = this.places;
    if (!places) return this.collector.add(error);
    const before = this.collector.errors.length;
    this.collector.add(error);
    if (this.collector.errors.length > before)
      places.push({ rows: this.rows, phase: -1, tracker: -1, first: -1, ...key });
  }

  /**
   * Holds this range's keys to `bytes` while a second range runs with the rest of the key
   * memory; past it, `over` is called (it stops the second range) and the share ends.
   */
  shareKeyMemory(bytes: number, over: () => void): void {
    this.share = { bytes, over };
  }

  endShare(): void {
    this.share = undefined;
  }

  /** Bytes the key tables hold in memory, and whether any went to disk. */
  keyUsage(): { inMemory: number; spilled: boolean } {
    return {
      inMemory: this.trackers.reduce(
        (sum, tracker) => sum + (tracker.isSpilled ? 0 : tracker.bytes),
        0,
      ),
      spilled: this.trackers.some((tracker) => tracker.isSpilled) || this.deferred.size > 0,
    };
  }

  /** Called once the data is read, so that a header-only table still gets its labels checked. */
  finish(): void {
    if (!this.map && !this.stopped) this.readHeader();
    this.reportLateRepeats();
    this.reportLateMisses();
  }

  /** Removes spilled keys that will not be read (the read failed or was stopped). */
  discard(): void {
    for (const tracker of this.trackers) tracker.discard();
    for (const files of this.deferred.values()) files.remove();
    this.deferred.clear();
  }

  /**
   * Past the key memory budget, the largest key tables go to disk until the rest fit in
   * half of it; checked every BUDGET_ROWS rows.
   */
  private keepKeysInBudget(): void {
    let inMemory = this.trackers.filter((tracker) => !tracker.isSpilled);
    let total = inMemory.reduce((sum, tracker) => sum + tracker.bytes, 0);
    if (this.share && total > this.share.bytes) {
      // The split cannot pay: the second range stops, and this one has the whole budget.
      const over = this.share.over;
      this.share = undefined;
      over();
    }
    if (total <= this.keyMemory) return;
    if (this.places) throw new RangeKeysTooLarge('the keys outgrew the memory of a range');
    while (total > this.keyMemory / 2 && inMemory.length > 0) {
      const largest = inMemory.reduce((a, b) => (b.bytes > a.bytes ? b : a));
      total -= largest.bytes;
      largest.spill();
      inMemory = inMemory.filter((tracker) => tracker !== largest);
    }
    if (!this.spillNoted) {
      this.spillNoted = true;
      this.collector.warnings.push(
        `keys outgrew ${describeBytes(this.keyMemory)} of memory and were checked on disk: repeated keys are reported after the other errors`,
      );
    }
  }

  /** A row whose foreign key points into keys on disk: checked with them after the last row. */
  private deferForeignKey(
    check: ForeignKeyCheck,
    row: { rowNumber: number; cells: () => string[]; fieldRaw: (index: number) => string },
  ): void {
    const key = foreignKeyOf(check, this.values);
    if (key === undefined) return;
    let files = this.deferred.get(check);
    if (!files) {
      files = new SpillFiles();
      this.deferred.set(check, files);
      this.collector.warnings.push(
        `the keys of "${check.referenceName}" outgrew ${describeBytes(this.keyMemory)} of memory and were checked on disk: foreign key errors are reported after the other errors`,
      );
    }
    const fieldCells = check.fields.map((index) => row.fieldRaw(index));
    const record = JSON.stringify([key, row.rowNumber, row.cells(), fieldCells]);
    files.append(spillPartOf(key), Buffer.from(record));
  }

  private reportLateMisses(): void {
    for (const [check, files] of this.deferred) {
      for (let part = 0; part < SPILL_PARTS && this.collector.open; part++) {
        const keys = check.lookup.part(part);
        for (const record of files.records(part)) {
          const [key, rowNumber, cells, fieldCells] = JSON.parse(record.toString()) as [
            string,
            number,
            string[],
            string[],
          ];
          if (!keys.has(key)) this.add(foreignKeyMissing(check, rowNumber, cells, fieldCells));
        }
      }
      files.remove();
    }
    this.deferred.clear();
  }

  private reportLateRepeats(): void {
    const map = this.map;
    if (!map) return;
    for (const tracker of this.trackers) {
      if (!tracker.isSpilled) continue;
      const isPrimary = tracker === this.primary;
      const isUnique = this.unique.includes(tracker);
      for (const repeat of tracker.lateRepeats()) {
        if (!this.collector.open) break;
        if (isUnique) this.uniqueError(tracker, repeat.first, repeat.cells, repeat.rowNumber);
        if (isPrimary) this.add(primaryKeyError(repeat.first, repeat.cells, repeat.rowNumber));
      }
    }
  }

  private readHeader(): ColumnMap {
    const parts = this.headerParts;
    const width = Math.max(0, ...parts.map((part) => part.length));
    const labels = Array.from({ length: width }, (_, column) =>
      parts
        .map((part) => part[column] ?? '')
        .filter((text) => text !== '')
        .join(this.layout.headerJoin),
    );
    this.collector.labels = labels;
    const required = new Set(
      this.fields.filter((field) => field.required).map((field) => field.name),
    );
    const primary = this.keys.primaryKey.map((index) => this.fields[index]?.name ?? '');
    for (const name of primary) required.add(name);
    const map = mapHeader(
      labels,
      this.headerRowNumbers,
      this.fields.map((field) => field.name),
      this.fieldsMatch,
      required,
    );
    for (const error of map.errors) this.add(error);
    this.stopped = map.fatal;
    this.map = map;
    return map;
  }

  private row(cells: readonly unknown[], rowNumber: number, map: ColumnMap): void {
    const fields = this.fields;
    const columns = map.columns;
    if (isBlank(cells, fields, columns)) {
      const text = cells.map(cellText);
      this.add(reportError('blank-row', '', { cells: text, rowNumber }));
      // Its key is null too, as the reference reports: skipping blank rows cannot hide it.
      if (this.keys.primaryKey.length > 0)
        this.add(primaryKeyError(null, text, rowNumber), {
          phase: this.unique.length,
          tracker: -1,
          first: -1,
        });
      return;
    }
    const values = this.values;
    const length = cells.length;
    for (let index = 0; index < fields.length; index++) {
      const field = fields[index] as CompiledField;
      const column = columns[index] as number;
      const raw = column >= 0 && column < length ? cells[column] : null;
      if (
        raw === null ||
        raw === undefined ||
        (typeof raw === 'string' && raw.length <= field.missingMaxLength && field.missing.has(raw))
      ) {
        values[index] = null;
        if (field.required && column >= 0) {
          this.cellError(
            'constraint-error',
            'constraint "required" is "True"',
            cells,
            rowNumber,
            index,
            raw,
          );
        }
        continue;
      }
      const value = field.cast(raw);
      values[index] = value;
      if (value === INVALID) {
        this.cellError('type-error', field.typeNote, cells, rowNumber, index, raw);
        continue;
      }
      const checks = field.checks;
      for (let k = 0; k < checks.length; k++) {
        const note = (checks[k] as ConstraintCheck)(value);
        if (note !== undefined)
          this.cellError('constraint-error', note, cells, rowNumber, index, raw);
      }
    }
    if (length !== map.width) this.shape(cells, rowNumber, map);
    if (this.hasKeys) this.checkKeys(() => cells, rowNumber, map);
  }

  private cellError(
    type: 'constraint-error' | 'type-error' | 'unique-error',
    note: string,
    cells: readonly unknown[],
    rowNumber: number,
    index: number,
    raw: unknown,
    key?: Omit<ErrorPlace, 'rows'>,
  ): void {
    const map = this.map;
    this.add(
      reportError(type, note, {
        cells: cells.map(cellText),
        rowNumber,
        cell: cellText(raw),
        fieldName: this.fields[index]?.name ?? '',
        fieldNumber: map?.fieldNumbers[index] ?? index + 1,
      }),
      key,
    );
  }

  private shape(cells: readonly unknown[], rowNumber: number, map: ColumnMap): void {
    const all = cells.map(cellText);
    for (let column = map.width; column < cells.length; column++) {
      this.add(
        reportError('extra-cell', '', {
          cells: all,
          rowNumber,
          cell: cellText(cells[column]),
          fieldName: '',
          fieldNumber: column + 1,
        }),
      );
    }
    this.fields.forEach((field, index) => {
      const column = map.columns[index] ?? -1;
      if (column < 0 || column < cells.length) return;
      const fieldNumber = map.fieldNumbers[index] ?? index + 1;
      this.add(
        reportError('missing-cell', '', {
          cells: all,
          rowNumber,
          cell: '',
          fieldName: field.name,
          fieldNumber,
        }),
      );
    });
  }

  /** Checks a row's keys; `cellsOf` gives its cells, made only for a report or a spill. */
  private checkKeys(cellsOf: () => readonly unknown[], rowNumber: number, map: ColumnMap): void {
    const values = this.values;
    if (++this.keyedRows % BUDGET_ROWS === FIRST_BUDGET_ROW) this.keepKeysInBudget();
    let text: string[] | undefined;
    const cellsText = (): string[] => (text ??= cellsOf().map(cellText));
    let primaryFirst: number | undefined | null;
    const unique = this.unique;
    for (let phase = 0; phase < unique.length; phase++) {
      const tracker = unique[phase] as KeyTracker;
      const first = tracker.check(values, rowNumber, cellsText);
      if (tracker === this.primary) primaryFirst = first;
      if (first === undefined || first === null) continue;
      this.uniqueError(tracker, first, cellsOf(), rowNumber, { phase, tracker: phase, first });
    }
    if (this.primary) {
      const first = this.primaryShared
        ? primaryFirst
        : this.primary.check(values, rowNumber, cellsText);
      if (first !== undefined) {
        const tracker = first === null ? -1 : this.primaryTracker;
        const key = { phase: unique.length, tracker, first: first ?? -1 };
        this.add(primaryKeyError(first, cellsText(), rowNumber), key);
      }
    }
    if (this.keys.foreignKeys.length === 0) return;
    const row = {
      rowNumber,
      values,
      cells: cellsText,
      fieldRaw: (index: number) => cellText(cellsOf()[map.columns[index] ?? -1]),
    };
    for (const check of this.keys.foreignKeys) {
      if (check.lookup.spilled) this.deferForeignKey(check, row);
      else {
        const error = foreignKeyError(check, row);
        if (error) this.add(error);
      }
    }
  }
}

function isBlank(
  cells: readonly unknown[],
  fields: readonly CompiledField[],
  columns: number[],
): boolean {
  for (let column = 0; column < cells.length; column++) {
    const raw = cells[column];
    if (raw === null || raw === undefined) continue;
    if (typeof raw !== 'string') return false;
    const field = fields[columns.indexOf(column)];
    if (field ? raw.length > field.missingMaxLength || !field.missing.has(raw) : raw !== '')
      return false;
  }
  return true;
}
