import { SourceFailure } from '../location.js';

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
    `row ${String(row)} is longer than ${String(limits.maxRowChars)} characters, the most this hub reads in one row`,
  );
}

/** Stops a read at a row wider or longer than the hub takes. */
export function checkRow(cells: readonly unknown[], row: number, limits: RowLimits): void {
  if (cells.length > limits.maxColumns)
    throw new SourceFailure(
      'source-error',
      `row ${String(row)} has ${String(cells.length)} cells; this hub reads at most ${String(limits.maxColumns)} columns`,
    );
  let chars = cells.length;
  for (const cell of cells) if (typeof cell === 'string') chars += cell.length;
  if (chars > limits.maxRowChars) throw rowTooLong(row, limits);
}
