import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { rowWriter, type RowWriter } from '../files/row-formats.js';
import type { ResourceDescriptor, SchemaDescriptor } from './descriptor/types.js';
import { asList } from './descriptor/rules.js';
import { isRemote } from './descriptor/paths.js';
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

/**
 * How each field's cell goes into the CSV copy: as written, and a workbook's date in the
 * form of its field's type (a spreadsheet may store a date-time at midnight as a date), so
 * that the schema the copy carries describes it.
 */
function csvWriters(schema: SchemaDescriptor): ((cell: unknown) => unknown)[] {
  return schema.fields.map((field) => {
    const type = field.type ?? 'string';
    if (!TEMPORAL.has(type)) return asWritten;
    const kind = type as 'date' | 'datetime' | 'time';
    return (cell) => (cell instanceof SheetDate ? new SheetDate(cell.ms, kind).toString() : cell);
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
 * field names; each cell as written, so the table's schema still describes it) and JSON (an
 * array of objects, values typed by the schema, dates and times in ISO 8601, missing values
 * null), whatever the source's encoding, dialect or spreadsheet format. Only the kinds the
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
    const cellWriters = csvWriters(schema);
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
              cell === null || cell === undefined ? '' : (cellWriters[field] ?? asWritten)(cell);
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
