import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { rowWriter, type RowWriter } from '../files/row-formats.js';
import type { FieldDescriptor, ResourceDescriptor, SchemaDescriptor } from './descriptor/types.js';
import { asList } from './descriptor/rules.js';
import { isRemote } from '../model/paths.js';
import { INVALID } from './schema/types/index.js';
import { ISO_TEXT } from './iso-date.js';
import { ParquetCopyWriter } from './parquet/write.js';
import { SheetDate } from './sheets/cells.js';
import { asWritten, jsonValue, TYPED_AS_VALUES } from './rows.js';
import type { TableRowSink, TableSinks } from './table/row-sink.js';

/** The copies of one table in the normal forms: where they were written, and their rows. */
export interface DerivedTable {
  /** The resource's position in `resources`. */
  index: number;
  name: string;
  csv: string;
  json: string;
  /** The first rows, cells as written, for a page to show without reading the table. */
  preview: string;
  /** Values typed by the schema, in Parquet (see parquet/write.ts). */
  parquet: string;
  /** Rows the copies hold: at most PREVIEW_ROWS when only the preview is written. */
  rows: number;
}

export type CopyKind = 'csv' | 'json' | 'preview' | 'parquet';

/** The copies written as text, a row at a time. */
type TextKind = Exclude<CopyKind, 'parquet'>;

/** Which copies to write, and who is told as each grows. */
export interface CopyPlan {
  kinds: readonly CopyKind[];
  /** Called as a copy's file grows, with the bytes written to it so far. */
  onWritten?: (kind: CopyKind, bytes: number) => void;
  /** Also copy tables read from a URL (the hub reads its own store's signed URLs). */
  remoteToo?: boolean;
  /**
   * The schema the CSV copy's descriptor declares, which says how its cells are written (see
   * csvWriters): by default the table's own, typed (typedField).
   */
  csvSchema?: SchemaDescriptor | undefined;
}

/** How many rows a table's preview holds. */
export const PREVIEW_ROWS = 100;

const FLUSH_BYTES = 256 * 1024;

/**
 * Text written to a file in large pieces, synchronously: this runs in a worker thread of its
 * own, where a blocking write holds up nothing else and keeps memory flat however fast rows
 * come (an asynchronous stream would buffer them while the disk catches up).
 */
class FileText {
  private readonly fd: number;
  /** Encoded here as rows come: joining strings and encoding them at each flush cost more. */
  private readonly buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  /** Bytes written to the file so far. */
  written = 0;

  constructor(
    readonly path: string,
    private readonly onWritten?: (bytes: number) => void,
  ) {
    this.fd = openSync(path, 'wx');
  }

  write(text: string): void {
    if (text === '') return;
    // A UTF-16 unit takes at most three bytes in UTF-8.
    if (this.used + text.length * 3 > FLUSH_BYTES) {
      this.flush();
      if (text.length * 3 > FLUSH_BYTES) {
        this.written += writeSync(this.fd, text);
        this.onWritten?.(this.written);
        return;
      }
    }
    this.used += this.buffer.write(text, this.used);
  }

  private flush(): void {
    for (let done = 0; done < this.used;)
      done += writeSync(this.fd, this.buffer, done, this.used - done);
    if (this.used === 0) return;
    this.written += this.used;
    this.used = 0;
    this.onWritten?.(this.written);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  /** Closes the file without writing what is pending: it is about to be removed. */
  abandon(): void {
    this.used = 0;
    closeSync(this.fd);
  }
}

/**
 * How each field's cast value goes into the JSON copy: numbers, booleans and JSON types as
 * values, dates and times as ISO 8601 text, the rest (durations, years…) as written; a
 * missing value is null.
 */
function jsonConverters(schema: SchemaDescriptor): ((value: unknown, cell: unknown) => unknown)[] {
  return schema.fields.map((field) => {
    const type = field.type ?? 'string';
    const iso = ISO_TEXT[type];
    return (value, cell) => {
      if (value === null) return null;
      if (value === INVALID) return asWritten(cell);
      if (iso && typeof value === 'number') return iso(value);
      return TYPED_AS_VALUES.has(type) ? jsonValue(value) : asWritten(cell);
    };
  });
}

const KINDS: readonly CopyKind[] = ['csv', 'json', 'preview'];

const TEMPORAL = new Set(['date', 'datetime', 'time']);

/** Field properties that say how a typed value is written as text, by type. */
const WRITTEN_AS: Record<string, readonly string[]> = {
  integer: ['groupChar', 'bareNumber'],
  number: ['decimalChar', 'groupChar', 'bareNumber'],
  boolean: ['trueValues', 'falseValues'],
  date: ['format'],
  datetime: ['format'],
  time: ['format'],
};

/** Values of those properties that are their type's defaults, as good as not given. */
const DEFAULT_WRITING: Record<string, unknown> = { format: 'default', bareNumber: true };

function writtenBy(field: FieldDescriptor, property: string): unknown {
  const value = field[property];
  if (property === 'decimalChar' && value === '.') return undefined;
  return value === DEFAULT_WRITING[property] ? undefined : value;
}

/** The missing values of a field, in text: its own, else its schema's, else the empty cell. */
function missingOf(field: FieldDescriptor, schema: SchemaDescriptor | undefined): string[] {
  const given = field.missingValues ?? schema?.missingValues ?? [''];
  return given.map((each) => (typeof each === 'string' ? each : each.value));
}

/**
 * The field of a copy typed by its schema, as the CSV and Parquet copies declare it: without
 * the properties that say how a value is written as text (the copy writes each in its type's
 * one form) and without missing values (a missing value is an empty cell, or null).
 */
export function typedField(field: FieldDescriptor): FieldDescriptor {
  const dropped = new Set(['missingValues', ...(WRITTEN_AS[field.type ?? 'string'] ?? [])]);
  return Object.fromEntries(
    Object.entries(field).filter(([key]) => !dropped.has(key)),
  ) as FieldDescriptor;
}

/**
 * Whether the CSV copy writes a field's cells from their values rather than as written,
 * when the copy declares `copy` for it: date-times and times always (a date-time written
 * without a zone is read as UTC, as the JSON and Parquet copies hold it, and said so with
 * `Z`); dates, numbers and booleans when the original's writing needs a property the copy
 * does not declare (a format, a decimal comma, grouped digits, other true and false words).
 * A copy that still declares the original's property (a revision published before copies
 * were typed) is written as the original is, which that property reads.
 */
export function writtenFromValue(field: FieldDescriptor, copy: FieldDescriptor): boolean {
  const type = field.type ?? 'string';
  const properties = WRITTEN_AS[type] ?? [];
  const same = (property: string) =>
    JSON.stringify(writtenBy(field, property)) === JSON.stringify(writtenBy(copy, property));
  if (type === 'datetime' || type === 'time') return writtenBy(copy, 'format') === undefined;
  return !properties.every(same);
}

/** A value as the JSON copy writes it, as text: one form per type. */
function valueText(type: string, value: unknown): string {
  if (typeof value === 'number') {
    const iso = ISO_TEXT[type];
    return iso ? iso(value) : String(value);
  }
  return String(value);
}

/** Types whose values have one form as text; the rest (objects, lists…) stay as written. */
const FROM_VALUE = new Set(['integer', 'number', 'boolean']);

type CellWriter = (cell: unknown, value: unknown) => unknown;

/**
 * How each field's cell goes into the CSV copy and the preview, one rule per type: as written
 * when the copy's schema reads that text as the same value, else from the value as the JSON
 * copy writes it (ISO 8601 dates and times, date-times in UTC with `Z`, numbers with a dot
 * and no grouping, `true` and `false`); a missing value as an empty cell. A workbook's dates,
 * which have no text, are written from their values. `copySchema` is the schema the copy's
 * descriptor declares (by default the typed one, typedField).
 */
function csvWriters(
  schema: SchemaDescriptor,
  copySchema: SchemaDescriptor | undefined,
): CellWriter[] {
  return schema.fields.map((field) => {
    const type = field.type ?? 'string';
    const copy = copySchema?.fields.find((each) => each.name === field.name) ?? typedField(field);
    const emptyIsMissing = missingOf(copy, copySchema ?? { fields: [] }).includes('');
    const missing = (cell: unknown) => (emptyIsMissing ? '' : asWritten(cell));
    const fromValue = writtenFromValue(field, copy);
    const keepsFormat = writtenBy(copy, 'format') !== undefined;
    const temporal = TEMPORAL.has(type);
    const kind = type as 'date' | 'datetime' | 'time';
    return (cell, value) => {
      if (value === null) return missing(cell);
      if (value === INVALID || value === undefined) return asWritten(cell);
      // A workbook's date has no text: written as its type's, unless the copy declares a format.
      if (cell instanceof SheetDate && temporal && !fromValue)
        return keepsFormat ? new SheetDate(cell.ms, kind).toString() : valueText(type, value);
      if (!fromValue) return asWritten(cell);
      return temporal || FROM_VALUE.has(type) ? valueText(type, jsonValue(value)) : asWritten(cell);
    };
  });
}

interface OpenCopy {
  table: DerivedTable;
  files: Partial<Record<TextKind, FileText>>;
  writers: Record<TextKind, RowWriter>;
  parquet: ParquetCopyWriter | undefined;
}

/**
 * The CSV and JSON copies of a package's tables, and their previews, written in the pass that
 * validates them: CSV in one normal form (UTF-8, comma, double quote, \n, a header of the
 * field names; each value in its type's one form, see csvWriters) and JSON (an array of
 * objects, values typed by the schema, dates and times in ISO 8601, date-times in UTC,
 * missing values null), whatever the source's encoding, dialect or spreadsheet format. Only the kinds the
 * plan names are written; kept only if the package is valid.
 */
export class TableCopies {
  private readonly copies: OpenCopy[] = [];

  constructor(
    private readonly outDir: string,
    private readonly plan: CopyPlan = { kinds: KINDS },
  ) {}

  readonly sinks: TableSinks = (resource, index, schema) => {
    if (index < 0 || typeof resource.name !== 'string') return undefined;
    if (!this.plan.remoteToo && !holdsItsBytes(resource)) return undefined;
    // A table read again (a multipart resource, say) keeps its first copy.
    if (this.copies.some((copy) => copy.table.index === index)) return undefined;
    return this.open(resource.name, index, schema);
  };

  private open(name: string, index: number, schema: SchemaDescriptor): TableRowSink {
    const table: DerivedTable = {
      index,
      name,
      csv: join(this.outDir, `${String(index)}.csv`),
      json: join(this.outDir, `${String(index)}.json`),
      preview: join(this.outDir, `${String(index)}.preview.json`),
      parquet: join(this.outDir, `${String(index)}.parquet`),
      rows: 0,
    };
    const { kinds, onWritten } = this.plan;
    const files: OpenCopy['files'] = {};
    const told = (kind: CopyKind) => onWritten && ((bytes: number) => onWritten(kind, bytes));
    for (const kind of kinds)
      if (kind !== 'parquet') files[kind] = new FileText(table[kind], told(kind));
    const parquet = kinds.includes('parquet')
      ? new ParquetCopyWriter(table.parquet, schema, told('parquet'))
      : undefined;
    const writers = { csv: rowWriter('csv'), json: rowWriter('json'), preview: rowWriter('json') };
    this.copies.push({ table, files, writers, parquet });
    const labels = schema.fields.map((field) => field.name);
    for (const [kind, file] of Object.entries(files) as [TextKind, FileText][])
      file.write(writers[kind].start(labels));
    const previewOnly = kinds.length === 1 && kinds[0] === 'preview';
    const converters = files.json ? jsonConverters(schema) : [];
    const cellWriters = csvWriters(schema, this.plan.csvSchema);
    const width = labels.length;
    const cellsOut = new Array<unknown>(width);
    const valuesOut = new Array<unknown>(width);
    const fieldCells = new Array<unknown>(width);
    const { csv, json, preview } = files;
    return {
      ...(previewOnly ? { rowsWanted: PREVIEW_ROWS } : {}),
      row: (cells, values, columns) => {
        if (previewOnly && table.rows >= PREVIEW_ROWS) return;
        table.rows++;
        const asCells = csv !== undefined || (preview !== undefined && table.rows <= PREVIEW_ROWS);
        for (let field = 0; field < width; field++) {
          const column = columns[field] ?? -1;
          const cell = column >= 0 ? cells[column] : null;
          if (asCells)
            cellsOut[field] =
              cell === null || cell === undefined
                ? ''
                : (cellWriters[field] ?? asWritten)(cell, values[field]);
          if (json) valuesOut[field] = converters[field]?.(values[field], cell) ?? null;
          if (parquet) fieldCells[field] = cell;
        }
        csv?.write(writers.csv.row(cellsOut));
        json?.write(writers.json.row(valuesOut));
        parquet?.row(values, fieldCells);
        if (preview && table.rows <= PREVIEW_ROWS) preview.write(writers.preview.row(cellsOut));
      },
    };
  }

  /** Closes the copies: kept for a valid package, removed otherwise. */
  finish(keep: boolean): DerivedTable[] {
    for (const copy of this.copies) {
      if (copy.parquet && keep) copy.parquet.close();
      else if (copy.parquet) {
        copy.parquet.abandon();
        rmSync(copy.table.parquet, { force: true });
      }
      for (const kind of this.plan.kinds) {
        if (kind === 'parquet') continue;
        const file = copy.files[kind];
        if (!file) continue;
        if (!keep) {
          file.abandon();
          rmSync(copy.table[kind], { force: true });
          continue;
        }
        file.write(copy.writers[kind].end());
        file.close();
      }
    }
    return keep ? this.copies.map((copy) => copy.table) : [];
  }
}

/** Tables whose bytes the package holds: remote ones are read where they are. */
function holdsItsBytes(resource: ResourceDescriptor): boolean {
  if (resource.data !== undefined) return true;
  const paths = asList(resource.path);
  return paths.length > 0 && !paths.some(isRemote);
}
