/**
 * A table's Parquet copy, written with hyparquet-writer (pure JavaScript, from the makers
 * of the hyparquet reader we read with) one row group at a time, so that memory holds one
 * group whatever the table's length. Pages are compressed with zstd by Node's own zlib:
 * on two million rows of the benchmark table it wrote in 10.6 s against 12.5 s with the
 * library's snappy (in JavaScript), and it is a codec DuckDB, pyarrow and Polars read.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { zstdCompressSync } from 'node:zlib';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { FieldDescriptor, SchemaDescriptor } from '../descriptor/types.js';
import { asWritten } from '../rows.js';
import { INVALID } from '../schema/types/index.js';
import { DAY_MS } from '../sheets/cells.js';

/** Schema elements as the writer takes them (it carries its own hyparquet's types). */
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/**
 * Rows of a group: small enough that a reader fetching a few groups by range fetches
 * little, and that a group's columns and their encoding stay small; large enough for each
 * column's statistics to skip well. Writing a million rows of the benchmark table (with a
 * copy worker's 12 MB young generation) peaked at 128 MB in 7.1 s with groups of 32,768
 * rows, 173 MB in 7.8 s with 65,536; DuckDB's default of 122,880 took more still.
 */
export const ROW_GROUP_ROWS = 32_768;
/** A group is closed sooner when its cells take this much text (long texts, many columns). */
const ROW_GROUP_BYTES = 32 * 1024 * 1024;

type Convert = (value: unknown, cell: unknown) => unknown;

interface ColumnPlan {
  element: SchemaElement;
  convert: Convert;
}

const OPTIONAL = 'OPTIONAL' as const;

const asText: Convert = (_value, cell) => String(asWritten(cell));

/**
 * How each field type is stored, and how its cast value becomes the stored one. Date-times
 * are instants in UTC (`isAdjustedToUTC`): a value written with an offset is moved to UTC,
 * one written without is read as UTC, as the JSON copy writes it. Types Parquet has no type
 * for (durations, year-months, geopoints, lists) are kept as written, as text.
 */
function columnPlan(field: FieldDescriptor): ColumnPlan {
  const name = field.name;
  switch (field.type ?? 'string') {
    case 'integer':
      return {
        element: { name, type: 'INT64', repetition_type: OPTIONAL },
        convert: (value) => BigInt(value as number | bigint),
      };
    case 'number':
      return { element: { name, type: 'DOUBLE', repetition_type: OPTIONAL }, convert: Number };
    case 'boolean':
      return { element: { name, type: 'BOOLEAN', repetition_type: OPTIONAL }, convert: Boolean };
    case 'year':
      return { element: { name, type: 'INT32', repetition_type: OPTIONAL }, convert: Number };
    case 'date':
      return {
        element: {
          name,
          type: 'INT32',
          repetition_type: OPTIONAL,
          converted_type: 'DATE',
          logical_type: { type: 'DATE' },
        },
        convert: (value) => Math.floor((value as number) / DAY_MS),
      };
    case 'datetime':
      return {
        element: {
          name,
          type: 'INT64',
          repetition_type: OPTIONAL,
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
        convert: (value) => BigInt(value as number),
      };
    case 'time':
      return {
        element: {
          name,
          type: 'INT32',
          repetition_type: OPTIONAL,
          converted_type: 'TIME_MILLIS',
          logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MILLIS' },
        },
        convert: (value) => value,
      };
    case 'object':
    case 'array':
    case 'geojson':
      return {
        element: {
          name,
          type: 'BYTE_ARRAY',
          repetition_type: OPTIONAL,
          converted_type: 'JSON',
          logical_type: { type: 'JSON' },
        },
        convert: (value) => value,
      };
    default:
      return {
        element: {
          name,
          type: 'BYTE_ARRAY',
          repetition_type: OPTIONAL,
          converted_type: 'UTF8',
          logical_type: { type: 'STRING' },
        },
        convert: asText,
      };
  }
}

/** hyparquet-writer's buffer, emptied into a file at each row group and at the end. */
function fileWriter(fd: number, onWritten?: (bytes: number) => void): ByteWriter {
  const writer = new ByteWriter(1024 * 1024);
  let written = 0;
  const flush = (): void => {
    const bytes = new Uint8Array(writer.buffer, 0, writer.index);
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
    written += bytes.length;
    writer.index = 0;
    onWritten?.(written);
  };
  Object.assign(writer, { flush, finish: flush });
  return writer;
}

/**
 * Rows in, a Parquet file out: each row's cast values (and its cells, for the fields kept
 * as written) go into columns, and each full group is encoded and written.
 */
export class ParquetCopyWriter {
  private readonly fd: number;
  private readonly plans: ColumnPlan[];
  private readonly writer: ParquetWriter;
  private columns: unknown[][];
  private groupBytes = 0;

  constructor(path: string, schema: SchemaDescriptor, onWritten?: (bytes: number) => void) {
    this.fd = openSync(path, 'wx');
    this.plans = schema.fields.map(columnPlan);
    this.writer = new ParquetWriter({
      writer: fileWriter(this.fd, onWritten),
      schema: [
        { name: 'schema', num_children: this.plans.length },
        ...this.plans.map((plan) => plan.element),
      ],
      codec: 'ZSTD',
      compressors: { ZSTD: (input: Uint8Array) => zstdCompressSync(input) },
      createdBy: 'data (hyparquet-writer)',
    });
    this.columns = this.plans.map(() => []);
  }

  /** One row: `values[i]` the cast value of field i (null when missing), `cells[i]` as read. */
  row(values: readonly unknown[], cells: readonly unknown[]): void {
    for (let field = 0; field < this.plans.length; field++) {
      const value = values[field];
      const plan = this.plans[field] as ColumnPlan;
      // A value its type refused makes the package invalid, and the copy is dropped.
      const stored =
        value === null || value === undefined || value === INVALID
          ? null
          : plan.convert(value, cells[field]);
      (this.columns[field] as unknown[]).push(stored);
      this.groupBytes += typeof stored === 'string' ? stored.length : 8;
    }
    if ((this.columns[0]?.length ?? 0) >= ROW_GROUP_ROWS || this.groupBytes >= ROW_GROUP_BYTES)
      this.writeGroup();
  }

  private writeGroup(): void {
    const rows = this.columns[0]?.length ?? 0;
    if (rows === 0) return;
    void this.writer.write({
      columnData: this.plans.map((plan, field) => ({
        name: plan.element.name,
        data: this.columns[field] as unknown[],
        // Minimum and maximum of numbers and dates, by which readers skip groups and pages;
        // none for texts, whose comparisons took a sixth of the writing.
        ...(plan.element.type === 'BYTE_ARRAY' ? { statistics: false } : { columnIndex: true }),
      })),
      rowGroupSize: rows,
    });
    this.columns = this.plans.map(() => []);
    this.groupBytes = 0;
  }

  close(): void {
    try {
      this.writeGroup();
      void this.writer.finish();
    } finally {
      closeSync(this.fd);
    }
  }

  abandon(): void {
    closeSync(this.fd);
  }
}
