/** What a table reader takes and gives: the one reader of text tables, and those of sheets and Parquet. */
import type { DialectDescriptor } from '../descriptor/types.js';
import type { Fetch } from '../location.js';
import type { SpanHandler } from './csv-parser.js';
import type { ResolvedDialect } from './dialect.js';
import type { RangeSplit } from './range-split.js';
import type { RowLimits } from './row-limits.js';

export interface RecordSink {
  /** A record of the table; `rowNumber` is given where rows can be left out (a sheet's empty rows). */
  record(cells: readonly unknown[], rowNumber?: number): void;
  /** A delimited table's record as where its cells lie in the text (see CsvParser). */
  spans?: SpanHandler | undefined;
  readonly open: boolean;
}

export interface ReadOptions {
  locations: readonly string[];
  encoding: string | undefined;
  dialect: DialectDescriptor | undefined;
  defaultDelimiter: string | undefined;
  /** The resource's format: workbooks (xlsx, xls, ods) are read as sheets, not text. */
  format?: string | undefined;
  hashes: readonly string[];
  fetch: Fetch;
  signal?: AbortSignal | undefined;
  /** Past these, reading stops with a source error (the hub sets them; the CLI does not). */
  rowLimits?: RowLimits | undefined;
  /** Called after each chunk with the bytes read so far. */
  onBytes?: ((read: number) => void) | undefined;
  /** For a single local CSV file: where a second worker takes over (see ranges.ts). */
  split?: RangeSplit | undefined;
  /** The schema's fields, for typed sources (Parquet) whose column types must hold them. */
  fields?: readonly { name: string; type?: string | undefined }[] | undefined;
}

export interface ReadResult {
  bytes: number;
  digests: Record<string, string>;
  encoding: string | undefined;
  dialect: ResolvedDialect | undefined;
  /** False when the sink stopped the read early. */
  complete: boolean;
}
