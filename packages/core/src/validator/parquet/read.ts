/**
 * Parquet tables, read row group by row group with hyparquet (pure JavaScript, no native
 * code; chosen over parquet-wasm, which read the benchmark's 2.5 million rows in 2.2 s
 * against 3.4 s but held the whole table, 1,041 MB at peak against 261 MB). Values come
 * typed, as a workbook's cells do: numbers, booleans, texts, dates; nulls are missing.
 */
import type { Compressors, FileMetaData, RowGroup, SchemaElement } from 'hyparquet';
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { SourceFailure } from '../location.js';
import { SheetDate, UnfitCell, type SheetDateKind } from '../sheets/cells.js';
import { fetchWhole } from '../sheets/read.js';
import type { ReadOptions, ReadResult, RecordSink } from '../table/read-types.js';
import { checkRow } from '../table/row-limits.js';

/** What a column holds, by its physical and logical types. */
type ColumnKind =
  'integer' | 'number' | 'boolean' | 'text' | 'date' | 'datetime' | 'time' | 'other';

function kindOf(element: SchemaElement): ColumnKind {
  const temporal = temporalKind(element);
  if (temporal) return temporal;
  if (element.num_children) return 'other';
  const logical = element.logical_type?.type;
  const converted = element.converted_type;
  if (logical === 'DECIMAL' || converted === 'DECIMAL') return 'number';
  switch (element.type) {
    case 'BOOLEAN':
      return 'boolean';
    case 'INT32':
    case 'INT64':
    case 'INT96':
      return 'integer';
    case 'FLOAT':
    case 'DOUBLE':
      return 'number';
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      return 'text';
    case undefined:
      return 'other';
  }
}

/** The column kinds that can hold each field type; a type not named takes text. */
const HOLDS: Record<string, readonly ColumnKind[]> = {
  integer: ['integer'],
  number: ['integer', 'number'],
  boolean: ['boolean'],
  date: ['date'],
  datetime: ['datetime'],
  time: ['time'],
  year: ['integer', 'text'],
  any: ['integer', 'number', 'boolean', 'text', 'date', 'datetime', 'time', 'other'],
  object: ['text', 'other'],
  array: ['text', 'other'],
  list: ['text', 'other'],
  geojson: ['text', 'other'],
};

/** How a column's values become cells: dates and times as a sheet's, the rest as they are. */
function temporalKind(element: SchemaElement): SheetDateKind | undefined {
  const logical = element.logical_type?.type;
  const converted = element.converted_type;
  if (logical === 'DATE' || converted === 'DATE') return 'date';
  if (
    logical === 'TIMESTAMP' ||
    converted === 'TIMESTAMP_MILLIS' ||
    converted === 'TIMESTAMP_MICROS'
  )
    return 'datetime';
  if (logical === 'TIME' || converted === 'TIME_MILLIS' || converted === 'TIME_MICROS')
    return 'time';
  return undefined;
}

/**
 * Units of a time-of-day column per millisecond, whose values hyparquet leaves counts: INT32
 * milliseconds, or INT64 microseconds or nanoseconds. Undefined for any other column.
 */
function timeScale(element: SchemaElement): bigint | undefined {
  const logical = element.logical_type;
  if (logical?.type === 'TIME')
    return logical.unit === 'NANOS' ? 1_000_000n : logical.unit === 'MICROS' ? 1000n : 1n;
  if (element.converted_type === 'TIME_MICROS') return 1000n;
  return element.converted_type === 'TIME_MILLIS' ? 1n : undefined;
}

function cell(value: unknown, kind: SheetDateKind | undefined, scale?: bigint): unknown {
  if (value === null || value === undefined) return null;
  // A time of day, as the time type reads one (what the hub's Parquet copies write).
  if (scale !== undefined && (typeof value === 'number' || typeof value === 'bigint'))
    return new SheetDate(Number(BigInt(value) / scale), 'time');
  if (typeof value === 'bigint')
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (value instanceof Date) return new SheetDate(value.getTime(), kind ?? 'datetime');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object')
    return JSON.stringify(value, (_, inner: unknown) =>
      typeof inner === 'bigint' ? inner.toString() : inner,
    );
  return value;
}

function textOf(value: unknown): string {
  if (value instanceof SheetDate) return value.toString();
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The top-level columns of a file: their names, and how each one's values are read. */
function columnsOf(metadata: FileMetaData): {
  names: string[];
  kinds: (SheetDateKind | undefined)[];
  holds: ColumnKind[];
  scales: (bigint | undefined)[];
} {
  const names: string[] = [];
  const kinds: (SheetDateKind | undefined)[] = [];
  const holds: ColumnKind[] = [];
  const scales: (bigint | undefined)[] = [];
  const [root, ...elements] = metadata.schema;
  let index = 0;
  for (let column = 0; column < (root?.num_children ?? 0); column++) {
    const element = elements[index];
    if (!element) break;
    names.push(element.name);
    kinds.push(temporalKind(element));
    holds.push(kindOf(element));
    scales.push(timeScale(element));
    // A nested column's own children follow it: skipped to the next top-level one.
    let skip = element.num_children ?? 0;
    index++;
    while (skip > 0) {
      skip += (elements[index]?.num_children ?? 0) - 1;
      index++;
    }
  }
  return { names, kinds, holds, scales };
}

/**
 * Which columns' values no cast of their field may take: their types cannot hold it. A
 * column no field names (a schema being inferred, say) is read as it is.
 */
function unfitColumns(names: string[], holds: ColumnKind[], options: ReadOptions): boolean[] {
  return names.map((name, column) => {
    const field = options.fields?.find((each) => each.name === name);
    if (!field) return false;
    return !(HOLDS[field.type ?? 'string'] ?? ['text']).includes(holds[column] ?? 'other');
  });
}

const MB = 1024 * 1024;

/**
 * The most a row group may declare it takes once read, and a page once decompressed:
 * past these a file is refused before anything is allocated for it, whatever it claims.
 * The hub gives half the memory of its processing; the command line a fixed amount.
 */
function groupLimit(options: ReadOptions): number {
  const shared = options.rowLimits?.maxSharedTextBytes;
  return shared === undefined ? 1024 * MB : shared / 2;
}

function tooLarge(what: string, bytes: number, limit: number): SourceFailure {
  return new SourceFailure(
    'format-error',
    `${what} declares ${(bytes / MB).toFixed(0)} MB once read, more than the ${(limit / MB).toFixed(0)} MB a row group may take here`,
  );
}

/**
 * Bytes a row group takes once read, by what it declares: its columns uncompressed,
 * dictionaries included, and a slot of each row's value in each column.
 */
function declaredBytes(group: RowGroup): number {
  let columns = 0;
  for (const column of group.columns)
    columns += Number(column.meta_data?.total_uncompressed_size ?? 0);
  const bytes = Math.max(Number(group.total_byte_size), columns);
  return bytes + Number(group.num_rows) * group.columns.length * 8;
}

/**
 * Decompression by Node's zlib (gzip, brotli, zstd; snappy is hyparquet's own), each page
 * held to its declared size, which is held to the limit.
 */
function decompressors(
  limit: number,
  snappy: (input: Uint8Array, output: Uint8Array) => void,
): Compressors {
  const sized = (length: number): number => {
    if (length > limit) throw tooLarge('a page', length, limit);
    return length;
  };
  return {
    SNAPPY: (input, length) => {
      const output = new Uint8Array(sized(length));
      snappy(input, output);
      return output;
    },
    GZIP: (input, length) => gunzipSync(input, { maxOutputLength: Math.max(1, sized(length)) }),
    BROTLI: (input, length) =>
      brotliDecompressSync(input, { maxOutputLength: Math.max(1, sized(length)) }),
    ZSTD: (input, length) =>
      zstdDecompressSync(input, { maxOutputLength: Math.max(1, sized(length)) }),
  };
}

/** What hyparquet found wrong with a file, as a format error of the table. */
function unreadable(error: unknown, signal: AbortSignal | undefined): unknown {
  if (error instanceof SourceFailure || signal?.aborted) return error;
  return new SourceFailure(
    'format-error',
    `the file is not a readable Parquet file: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** Reads a Parquet file's rows into the sink, its column names first, as a header. */
export async function readParquet(options: ReadOptions, sink: RecordSink): Promise<ReadResult> {
  const [location, ...more] = options.locations;
  if (location === undefined || more.length > 0)
    throw new SourceFailure(
      'source-error',
      'a Parquet table is one file: a list of paths is for delimited text',
    );
  const file = await fetchWhole(location, options);
  try {
    const { asyncBufferFromFile, parquetMetadataAsync, parquetRead, snappyUncompress } =
      await import('hyparquet');
    const buffer = await asyncBufferFromFile(file.path);
    let metadata: FileMetaData;
    try {
      metadata = await parquetMetadataAsync(buffer);
    } catch (error) {
      throw unreadable(error, options.signal);
    }
    const limit = groupLimit(options);
    const compressors = decompressors(limit, snappyUncompress);
    for (const [index, group] of metadata.row_groups.entries()) {
      const declared = declaredBytes(group);
      if (declared > limit) throw tooLarge(`row group ${String(index + 1)}`, declared, limit);
    }
    const { names, kinds, holds, scales } = columnsOf(metadata);
    const unfit = unfitColumns(names, holds, options);
    let rowNumber = 1;
    sink.record(names, rowNumber);
    let start = 0;
    for (const group of metadata.row_groups) {
      if (!sink.open) break;
      const end = start + Number(group.num_rows);
      const read = parquetRead({
        file: buffer,
        metadata,
        compressors,
        rowStart: start,
        rowEnd: end,
        rowFormat: 'array',
        onComplete: (rows: unknown[][]) => {
          for (const row of rows) {
            if (!sink.open) return;
            rowNumber++;
            const record = names.map((_, column) => {
              const value = cell(row[column], kinds[column], scales[column]);
              return unfit[column] === true && value !== null
                ? new UnfitCell(textOf(value))
                : value;
            });
            if (options.rowLimits) checkRow(record, rowNumber, options.rowLimits);
            sink.record(record, rowNumber);
          }
        },
      });
      await read.catch((error: unknown) => {
        throw unreadable(error, options.signal);
      });
      start = end;
    }
    return {
      bytes: file.bytes,
      digests: file.digests,
      encoding: undefined,
      dialect: undefined,
      complete: sink.open,
    };
  } finally {
    await file.cleanup();
  }
}
