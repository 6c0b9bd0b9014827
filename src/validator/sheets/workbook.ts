import { SourceFailure } from '../location.js';

/** Which sheet of a workbook is the table: by name, by number from 1, or the first. */
export interface SheetChoice {
  name?: string | undefined;
  number?: number | undefined;
}

/** Hands on one row of the sheet, numbered as the sheet numbers it (from 1). */
export type EmitRow = (rowNumber: number, cells: unknown[]) => void;

/** The most columns a sheet has in Excel and LibreOffice. */
export const MAX_SHEET_COLUMNS = 16_384;

/** The most rows a sheet has: LibreOffice's large sheets (Excel stops at 1,048,576). */
export const MAX_SHEET_ROWS = 16_777_216;

/**
 * The most characters one cell's text may have here: far past Excel's own 32,767, short of
 * what a string can hold, so that a compressed part that inflates to one huge text (a zip
 * bomb) is an error and not a crash.
 */
export const MAX_CELL_CHARS = 16 * 1024 * 1024;

/** Appends text to a cell's, refusing past MAX_CELL_CHARS. */
export function appendCellText(cell: string, text: string): string {
  if (cell.length + text.length > MAX_CELL_CHARS)
    throw new SourceFailure(
      'source-error',
      `a cell holds more than ${String(MAX_CELL_CHARS)} characters, more than a workbook cell can`,
    );
  return cell + text;
}

export function describeChoice(choice: SheetChoice): string {
  if (choice.name !== undefined) return `sheet "${choice.name}"`;
  return `sheet ${String(choice.number ?? 1)}`;
}

export function isChosen(choice: SheetChoice, name: string, position: number): boolean {
  if (choice.name !== undefined) return choice.name === name;
  return (choice.number ?? 1) === position;
}

/** A sheet the workbook does not have; it names those it has. */
export class NoSuchSheet extends SourceFailure {
  constructor(
    choice: SheetChoice,
    readonly sheets: readonly string[],
  ) {
    super(
      'format-error',
      `the workbook has no ${describeChoice(choice)}; its sheets are ${listSheets(sheets)}`,
    );
  }
}

/** Sheets as a list people read: `1. "Prices", 2. "Notes"`. */
export function listSheets(names: readonly string[]): string {
  return names.map((name, index) => `${String(index + 1)}. "${name}"`).join(', ') || 'none';
}

export function noSuchSheet(choice: SheetChoice, names: readonly string[]): NoSuchSheet {
  return new NoSuchSheet(choice, names);
}

export function tooWide(rowNumber: number): SourceFailure {
  return new SourceFailure(
    'format-error',
    `row ${String(rowNumber)} has more than ${String(MAX_SHEET_COLUMNS)} columns, more than a sheet can have`,
  );
}

/** Office Open XML escapes characters XML cannot hold as `_xHHHH_`. */
export function unescapeOoxml(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}
