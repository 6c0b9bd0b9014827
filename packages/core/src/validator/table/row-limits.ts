import { SourceFailure } from '../location.js';
import { counted } from '../../text/numbers.js';

export interface RowLimits {
  /** Characters of one row, line breaks in quoted cells included. */
  maxRowChars: number;
  maxColumns: number;
  /** Bytes of a workbook's shared strings, which stay in memory while its sheet is read. */
  maxSharedTextBytes?: number | undefined;
}

export function rowTooLong(row: number, limits: RowLimits): SourceFailure {
  return new SourceFailure(
    'source-error',
    `row ${String(row)} is longer than ${counted(limits.maxRowChars, 'character')}, the most this hub reads in one row`,
  );
}

function tooWide(row: number, cells: number, limits: RowLimits): SourceFailure {
  return new SourceFailure(
    'source-error',
    `row ${String(row)} has ${counted(cells, 'cell')}; this hub reads at most ${counted(limits.maxColumns, 'column')}`,
  );
}

/** Stops a read at a row wider or longer than the hub takes. */
export function checkRow(cells: readonly unknown[], row: number, limits: RowLimits): void {
  if (cells.length > limits.maxColumns) throw tooWide(row, cells.length, limits);
  let chars = cells.length;
  for (const cell of cells) if (typeof cell === 'string') chars += cell.length;
  if (chars > limits.maxRowChars) throw rowTooLong(row, limits);
}

/** `checkRow` for a record given as spans (see CsvParser). */
export function checkSpans(
  bounds: Int32Array,
  count: number,
  row: number,
  limits: RowLimits,
): void {
  if (count > limits.maxColumns) throw tooWide(row, count, limits);
  let chars = count;
  for (let k = 0; k < count; k++)
    chars += (bounds[2 * k + 1] as number) - (bounds[2 * k] as number);
  if (chars > limits.maxRowChars) throw rowTooLong(row, limits);
}
