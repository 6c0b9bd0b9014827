/**
 * A large local CSV file is validated as two byte ranges, one per worker: the first range's
 * validator reads the header and the rows up to a line feed near the middle, another worker
 * validates the rows after it, and the first merges what the second found (ranges-merge.ts)
 * so that the report is the one a single pass gives.
 */
import type { RowLimits } from './row-limits.js';
import type { SchemaDescriptor, StandardVersion } from '../descriptor/types.js';
import type { TaskLimits } from '../report/task.js';
import type { ReportError } from '../report/types.js';
import type { CsvOptions } from './csv-parser.js';
import type { ColumnMap, FieldsMatch } from './header.js';
import type { KeyDump } from './keys-check.js';
import type { ErrorPlace, TableLayout } from './table-validator.js';
import { open, stat } from 'node:fs/promises';
import type { MessagePort } from 'node:worker_threads';

export interface SplitOptions {
  /** Files smaller than this are read in one pass (32 MB). */
  minBytes?: number;
  /** Where to look for the line feed that ends the first range (the middle). */
  at?: number;
  /** The first range's share of the file, when `at` is not given (FIRST_SHARE). */
  firstShare?: number;
}

export const SPLIT_MIN_BYTES = 32 * 1024 * 1024;

/**
 * The share of the file the first range takes. With the range worker started beside the
 * first (isolated.ts) it is ready before the first range has read its sample, and halves
 * end together: on the benchmark table, 5 runs each twice, a first range of 50% took
 * 473-589 ms, 53% 480-534 ms, 56% 479-545 ms and 59% 509-569 ms.
 */
const FIRST_SHARE = 0.5;

/** How far past the chosen byte a line feed is looked for. */
const LINE_FEED_SEARCH = 1024 * 1024;

/** Encodings in which a line feed byte is always a line feed character. */
const SPLITTABLE_ENCODINGS =
  /^(utf-8|windows-\d+|iso-8859-\d+|koi8-[ru]|ibm866|macintosh|x-mac-cyrillic)$/;

export function splittableEncoding(encoding: string): boolean {
  return SPLITTABLE_ENCODINGS.test(encoding);
}

export interface RangePlan {
  location: string;
  /** The byte after the line feed where the second range starts. */
  at: number;
  /** The size of the file: where the second range ends. */
  size: number;
}

/** Where a local file splits in two, or undefined when it is too small or has no line feed. */
export async function planRanges(
  location: string,
  options: SplitOptions,
): Promise<RangePlan | undefined> {
  const size = (await stat(location).catch(() => undefined))?.size ?? 0;
  if (size < (options.minBytes ?? SPLIT_MIN_BYTES)) return undefined;
  const share = options.firstShare ?? FIRST_SHARE;
  const from = Math.max(1, Math.min(size - 1, options.at ?? Math.floor(size * share)));
  const handle = await open(location, 'r');
  try {
    const window = Buffer.alloc(Math.min(LINE_FEED_SEARCH, size - from));
    const { bytesRead } = await handle.read(window, 0, window.length, from);
    const lineFeed = window.subarray(0, bytesRead).indexOf(10);
    const at = lineFeed < 0 ? size : from + lineFeed + 1;
    return at < size ? { location, at, size } : undefined;
  } finally {
    await handle.close();
  }
}

/** The layout of the second range: no header, comments by character only. */
export function rangeLayout(commentChar: string | undefined): TableLayout {
  return { headerRows: [], headerJoin: '', commentChar, commentRows: new Set<number>() };
}

/** What the second range's worker is sent once the first range has read its header. */
export interface RangeRequest {
  location: string;
  start: number;
  end: number;
  encoding: string;
  csv: CsvOptions;
  commentChar: string | undefined;
  schema: SchemaDescriptor;
  version: StandardVersion;
  primaryKey: number[];
  uniqueKeys: number[][];
  fieldsMatch: FieldsMatch;
  map: ColumnMap;
  limits: TaskLimits;
  keyMemory: number;
  /** A row past these ends the second range: the first reads on alone and reports it. */
  rowLimits?: RowLimits;
}

/** What the second range found, its row numbers counted from its own first record. */
export type RangeResult =
  | {
      ok: true;
      /** Records read, comments included. */
      records: number;
      /** Rows checked. */
      rows: number;
      errors: ReportError[];
      places: ErrorPlace[];
      keys: KeyDump[];
      /** Bytes the second range's key tables held. */
      keyBytes: number;
    }
  | { ok: false; reason: string };

export type RangeMessage = { type: 'bytes'; read: number } | { type: 'range'; result: RangeResult };

/**
 * The data a range worker starts with: it loads its code, then waits for its request on
 * `port`, or from its parent without one.
 */
export interface RangeWorkerData {
  kind: 'range';
  port?: MessagePort;
}

/** Tells a range worker to end: the first range reads on alone. */
export interface RangeStop {
  type: 'stop';
}

export function isRangeWorker(data: unknown): data is RangeWorkerData {
  return typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'range';
}
