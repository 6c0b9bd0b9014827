import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { fileHead } from '../../files/chunks.js';
import { contentFormat } from '../../files/content-format.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { isRemote } from '../../model/paths.js';
import type { DialectDescriptor } from '../descriptor/types.js';
import { SourceFailure } from '../location.js';
import { countAndHash } from '../file.js';
import type { ReadOptions, ReadResult, RecordSink } from '../table/read-types.js';
import { checkRow, type RowLimits } from '../table/row-limits.js';
import { readOds } from './ods.js';
import {
  MAX_SHEET_CELLS,
  MAX_SHEET_CHARS,
  MAX_SHEET_ROWS,
  NoSuchSheet,
  tooLarge,
  type EmitRow,
  type SheetChoice,
} from './workbook.js';
import { sharedTextLimit } from './string-store.js';
import { readXls } from './xls.js';
import { readXlsx } from './xlsx.js';
import { ZipParts } from './zip.js';

export { isSpreadsheet } from './formats.js';

/** The sheet a dialect names (v2 Table Dialect `sheetName` / `sheetNumber`). */
export function sheetChoice(dialect: DialectDescriptor | undefined): SheetChoice {
  return { name: dialect?.sheetName, number: dialect?.sheetNumber };
}

/** Reads the chosen sheet of a workbook into the sink, with the file's size and digests. */
export async function readSpreadsheet(options: ReadOptions, sink: RecordSink): Promise<ReadResult> {
  const [location, ...more] = options.locations;
  if (location === undefined || more.length > 0)
    throw new SourceFailure(
      'source-error',
      'a workbook is one file: a list of paths (multipart) is for delimited text',
    );
  const file = await fetchWhole(location, options);
  try {
    const rows = new SheetRows(sink, options.rowLimits);
    const read = await readWorkbook(
      file.path,
      sheetChoice(options.dialect),
      rows.emit,
      () => !sink.open || options.signal?.aborted === true,
      options.rowLimits?.maxSharedTextBytes ?? sharedTextLimit(file.bytes),
    );
    return {
      bytes: file.bytes,
      digests: file.digests,
      encoding: undefined,
      dialect: undefined,
      complete: read && sink.open,
    };
  } finally {
    await file.cleanup();
  }
}

export interface WholeFile {
  path: string;
  bytes: number;
  digests: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * Counts and hashes the file; a remote one is kept in a temporary file, since a workbook's
 * directory is at its end and its parts are read out of order.
 */
export async function fetchWhole(location: string, options: ReadOptions): Promise<WholeFile> {
  const remote = isRemote(location);
  const dir = remote ? await mkdtemp(join(tmpdir(), 'data-workbook-')) : undefined;
  const path = dir ? join(dir, 'workbook') : location;
  const cleanup = async (): Promise<void> => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  try {
    const copy = dir ? createWriteStream(path) : undefined;
    const { bytes, digests } = await countAndHash(
      [location],
      options.hashes,
      options.fetch,
      options.signal,
      async (chunk, read) => {
        if (copy && !copy.write(Buffer.from(chunk))) await once(copy, 'drain');
        options.onBytes?.(read);
      },
    );
    if (copy) {
      copy.end();
      await finished(copy);
    }
    return { path, bytes, digests, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** The names of a local workbook's sheets, in order. */
export async function sheetNames(path: string): Promise<readonly string[]> {
  try {
    // A sheet past any a workbook can have: the reader names them all and reads none.
    await readWorkbook(
      path,
      { number: Number.MAX_SAFE_INTEGER },
      () => undefined,
      () => false,
      undefined,
    );
  } catch (error) {
    if (error instanceof NoSuchSheet) return error.sheets;
    throw error;
  }
  return [];
}

async function readWorkbook(
  path: string,
  choice: SheetChoice,
  emit: EmitRow,
  stop: () => boolean,
  maxSharedTextBytes: number | undefined,
): Promise<boolean> {
  // The workbook's format by its first bytes, whatever its name says.
  const start = await fileHead(path, 512);
  const format = contentFormat(start);
  if (format === 'xls') return readXls(path, choice, emit, stop);
  if (format !== 'xlsx' && format !== 'ods' && format !== 'zip') {
    const html = /^\s*<(!doctype html|html[\s>])/i.test(start.toString('latin1'));
    throw new SourceFailure(
      'format-error',
      html
        ? 'the data is an HTML page, not a workbook'
        : 'the data is not a workbook: not an .xlsx, .xls or .ods file',
    );
  }
  const zip = await ZipParts.open(path);
  try {
    if (zip.has('content.xml')) return await readOds(zip, choice, emit, stop);
    if (zip.has('[Content_Types].xml'))
      return await readXlsx(zip, choice, emit, stop, maxSharedTextBytes);
    throw new SourceFailure('format-error', 'the data is a zip archive, not a workbook');
  } finally {
    zip.close();
  }
}

function isEmpty(cell: unknown): boolean {
  return cell === null || cell === undefined || cell === '';
}

/**
 * Turns a sheet's rows into table records: empty rows before the first and after the last
 * row with content are left out, those in between are blank records; each record is as wide
 * as the first (the header, usually), wider only where a row has content further right.
 * What a row, its repeats and the blank rows before it make is counted against the sheet's
 * limits before any of it is made.
 */
class SheetRows {
  private last = 0;
  private width = -1;
  private cells = 0;
  private chars = 0;

  constructor(
    private readonly sink: RecordSink,
    private readonly limits: RowLimits | undefined,
  ) {}

  readonly emit = (rowNumber: number, cells: unknown[], repeat = 1): void => {
    let end = cells.length;
    while (end > 0 && isEmpty(cells[end - 1])) end--;
    const lastRow = rowNumber + repeat - 1;
    if (lastRow > MAX_SHEET_ROWS)
      throw new SourceFailure(
        'format-error',
        `the sheet has a row numbered ${String(lastRow)}, past the ${String(MAX_SHEET_ROWS)} rows a sheet can have`,
      );
    if (end === 0) return;
    if (this.width < 0) this.width = end;
    const number = Math.max(rowNumber, this.last + 1);
    const record = new Array<unknown>(Math.max(end, this.width));
    let chars = record.length;
    for (let i = 0; i < record.length; i++) {
      const cell = i < end ? (cells[i] ?? null) : null;
      if (typeof cell === 'string') chars += cell.length;
      record[i] = cell;
    }
    const blanks = this.last > 0 ? number - this.last - 1 : 0;
    this.count(
      number,
      blanks * this.width + repeat * record.length,
      blanks * this.width + repeat * chars,
    );
    if (this.limits) checkRow(record, number, this.limits);
    if (this.last > 0)
      for (let blank = this.last + 1; blank < number && this.sink.open; blank++)
        this.sink.record(new Array<null>(this.width).fill(null), blank);
    for (let i = 0; i < repeat && this.sink.open; i++)
      this.sink.record(i === 0 ? record : record.slice(), number + i);
    this.last = number + repeat - 1;
  };

  private count(rowNumber: number, cells: number, chars: number): void {
    this.cells += cells;
    this.chars += chars;
    if (this.cells > MAX_SHEET_CELLS) throw tooLarge(rowNumber, 'cells');
    if (this.chars > MAX_SHEET_CHARS) throw tooLarge(rowNumber, 'characters');
  }
}
