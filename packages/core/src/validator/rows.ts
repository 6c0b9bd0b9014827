import type { ResourceDescriptor, SchemaDescriptor } from './descriptor/types.js';
import type { Base, Fetch } from './location.js';
import { locate, SourceFailure } from './location.js';
import { asList } from './descriptor/rules.js';
import { compileField } from './schema/field.js';
import { inferSchema, INFER_ROWS } from './schema/infer.js';
import { INVALID } from './schema/types/index.js';
import { SheetDate, UnfitCell } from './sheets/cells.js';
import { ISO_TEXT } from './iso-date.js';
import { isParquet, isSpreadsheet } from './sheets/formats.js';
import { inlineRecords } from './table/inline.js';
import { readTable, type RecordSink } from './table/read.js';
import { formatOf, isTableFormat } from '../model/format.js';
import { inferResourceSchema, noteContentFormat } from './resource.js';
import { cellText, isCommentRow, type TableLayout } from './table/table-validator.js';
import { resolveDialect } from './table/dialect.js';

/** A table read as it is written: labels once, then each data row (header and comments left out). */
export interface RowHandler {
  labels(labels: string[]): void;
  /** The row's values: typed by the schema when `typed`, else the cells as written. */
  row(values: unknown[]): void;
  /** False once the reader wants no more rows (a closed output). */
  readonly open: boolean;
}

/** A workbook's date cell as the text the Table Schema writes it in; other cells as they are. */
export function asWritten(cell: unknown): unknown {
  if (cell instanceof UnfitCell) return cell.text;
  return cell instanceof SheetDate ? cell.toString() : cell;
}

/** A value as JSON can hold it: big integers as text, missing values as null. */
export function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint')
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

export const TYPED_AS_VALUES = new Set([
  'integer',
  'number',
  'boolean',
  'object',
  'array',
  'geojson',
]);

/**
 * Casts each cell by its field: numbers, booleans and JSON types become values; dates,
 * times and the rest stay as written; missing values become null; a cell its type refuses
 * stays as written.
 */
function typer(schema: SchemaDescriptor): (cells: readonly unknown[]) => unknown[] {
  const fields = schema.fields.map((field) => ({
    compiled: compileField(field, schema, 2),
    asValue: TYPED_AS_VALUES.has(field.type ?? 'string'),
  }));
  return (cells) =>
    cells.map((cell, index) => {
      const field = fields[index];
      if (!field) return asWritten(cell);
      if (typeof cell === 'string' && field.compiled.missing.has(cell)) return null;
      if (!field.asValue) return asWritten(cell);
      const value = field.compiled.cast(cell);
      return value === INVALID ? asWritten(cell) : jsonValue(value);
    });
}

const ISO_DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * For each field, its cast of a cell to a value that two tables saying the same thing give
 * alike whatever their format: numbers, booleans and JSON types as values, dates and times
 * as ISO 8601 text (a workbook's date and a CSV's `03/01/2024` alike), missing values null;
 * the rest, and cells their type refuses, as written.
 */
export function comparableCasts(schema: SchemaDescriptor): ((cell: unknown) => unknown)[] {
  return schema.fields.map((field) => {
    const compiled = compileField(field, schema, 2);
    const iso = ISO_TEXT[field.type ?? 'string'];
    const isoDay =
      field.type === 'date' && (field.format === undefined || field.format === 'default');
    const asValue = TYPED_AS_VALUES.has(field.type ?? 'string') || field.type === 'year';
    return (cell) => {
      if (cell === null || cell === undefined) return null;
      if (typeof cell === 'string' && compiled.missing.has(cell)) return null;
      if (!asValue && !iso) return asWritten(cell);
      // A date already written as ISO 8601 is its own comparable text: not cast and
      // written again (a third of the time of a diff of a dated table).
      if (isoDay && typeof cell === 'string' && ISO_DAY.test(cell)) return cell;
      const value = compiled.cast(cell);
      if (value === INVALID) return asWritten(cell);
      return iso && typeof value === 'number' ? iso(value) : jsonValue(value);
    };
  });
}

function comparableTyper(schema: SchemaDescriptor): (cells: readonly unknown[]) => unknown[] {
  const casts = comparableCasts(schema);
  return (cells) =>
    cells.map((cell, index) => {
      const cast = casts[index];
      return cast ? cast(cell) : asWritten(cell);
    });
}

/** Skips comment rows, gathers the header rows into labels, and hands on the data rows. */
function layoutSink(
  layout: TableLayout,
  handler: RowHandler,
  cast: (cells: readonly unknown[]) => unknown[],
): RecordSink {
  const headerEnd = layout.headerRows.length > 0 ? Math.max(...layout.headerRows) : 0;
  const parts: string[][] = [];
  let rowNumber = 0;
  let content = 0;
  let labelled = headerEnd === 0;
  if (labelled) handler.labels([]);
  return {
    record(cells, sheetRow) {
      rowNumber = sheetRow ?? rowNumber + 1;
      if (isCommentRow(layout, rowNumber, cells)) return;
      content++;
      if (content <= headerEnd) {
        if (layout.headerRows.includes(content)) parts.push(cells.map(cellText));
        if (content === headerEnd) {
          const width = Math.max(0, ...parts.map((part) => part.length));
          handler.labels(
            Array.from({ length: width }, (_, column) =>
              parts
                .map((part) => part[column] ?? '')
                .filter((text) => text !== '')
                .join(layout.headerJoin),
            ),
          );
          labelled = true;
        }
        return;
      }
      if (!labelled) return;
      handler.row(cast(cells));
    },
    get open() {
      return handler.open;
    },
  };
}

/** Holds the first rows until a schema is inferred from them, then types every row by it. */
function typedAsInferred(
  handler: RowHandler,
  typerOf: (schema: SchemaDescriptor) => (cells: readonly unknown[]) => unknown[],
): RowHandler & { flush(): void } {
  let labels: string[] = [];
  const held: unknown[][] = [];
  let cast: ((cells: readonly unknown[]) => unknown[]) | undefined;
  const flush = (): void => {
    if (cast) return;
    cast = typerOf(inferSchema(labels, held));
    for (const cells of held.splice(0)) if (handler.open) handler.row(cast(cells));
  };
  return {
    labels: (given) => {
      labels = given;
      handler.labels(given);
    },
    row: (cells) => {
      if (cast) return handler.row(cast(cells));
      held.push(cells);
      if (held.length >= INFER_ROWS) flush();
    },
    get open() {
      return handler.open;
    },
    flush,
  };
}

/**
 * Reads a table resource row by row, streamed: the same reading as validation (encoding,
 * dialect, multipart files, inline data), for printing it again.
 */
export async function readRows(
  resource: ResourceDescriptor,
  base: Base,
  options: {
    fetch: Fetch;
    signal?: AbortSignal | undefined;
    /** True: typed as JSON writes them; 'comparable': every type cast (see comparableTyper). */
    typed: boolean | 'comparable';
    /** Called after each chunk of a file with the bytes read so far (see ReadOptions). */
    onBytes?: ((read: number) => void) | undefined;
  },
  given: RowHandler,
): Promise<void> {
  if (base.dir !== undefined) await noteContentFormat(resource, base);
  const named = formatOf(resource);
  // A file of a format no table is (a PDF, an image) is not printed as one.
  if (resource.data === undefined && named !== undefined && !isTableFormat(named))
    throw new SourceFailure(
      'format-error',
      `"${asList(resource.path).join(' + ')}" is not a table (format "${named}"): tables are CSV, TSV, Excel, OpenDocument and Parquet files`,
    );
  let schema = typeof resource.schema === 'object' ? resource.schema : undefined;
  if (!schema && options.typed && base.dir !== undefined)
    schema = await inferResourceSchema(resource, base.dir);
  const format = formatOf(resource);
  // A delimited table's cells are already text, each record a fresh array.
  const asText = resource.data === undefined && !isSpreadsheet(format) && !isParquet(format);
  const typerOf = options.typed === 'comparable' ? comparableTyper : typer;
  const cast =
    options.typed && schema
      ? typerOf(schema)
      : asText
        ? (cells: readonly unknown[]) => cells as unknown[]
        : (cells: readonly unknown[]) => cells.map(asWritten);
  // A stream (standard input, a URL) is read once: its schema is inferred from its first
  // rows as they come, as validation infers it, and they are typed once it is.
  const inferring =
    options.typed && !schema && asText ? typedAsInferred(given, typerOf) : undefined;
  const handler = inferring ?? given;
  if (resource.data !== undefined) {
    const records = inlineRecords(resource.data);
    if (typeof records === 'string') throw new Error(records);
    const layout = resolveDialect(
      typeof resource.dialect === 'object' ? resource.dialect : undefined,
      '',
      ',',
    ).layout;
    const sink = layoutSink(layout, handler, cast);
    for (const record of records) {
      if (!sink.open) break;
      sink.record(record);
    }
    inferring?.flush();
    return;
  }
  const declared = typeof resource.dialect === 'object' ? resource.dialect : undefined;
  // The layout (header and comment rows) comes from the declared dialect alone.
  const layout = resolveDialect(declared, '', ',').layout;
  await readTable(
    {
      locations: asList(resource.path).map((path) => locate(path, base)),
      encoding: resource.encoding,
      dialect: declared,
      defaultDelimiter: formatOf(resource) === 'tsv' ? '\t' : undefined,
      format: formatOf(resource),
      hashes: [],
      fetch: options.fetch,
      signal: options.signal,
      onBytes: options.onBytes,
    },
    layoutSink(layout, handler, cast),
  );
  inferring?.flush();
}
