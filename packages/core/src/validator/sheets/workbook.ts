import { SourceFailure } from '../location.js';

/** Which sheet of a workbook is the table: by name, by number from 1, or the first. */
export interface SheetChoice {
  name?: string | undefined;
  number?: number | undefined;
}

/**
 * Hands on one row of the sheet, numbered as the sheet numbers it (from 1); `repeat` rows
 * alike from there (an OpenDocument row repeated), which the reader counts before it makes them.
 */
export type EmitRow = (rowNumber: number, cells: unknown[], repeat?: number) => void;

/** The most columns a sheet has in Excel and LibreOffice. */
export const MAX_SHEET_COLUMNS = 16_384;

/** The most rows a sheet has: LibreOffice's large sheets (Excel stops at 1,048,576). */
export const MAX_SHEET_ROWS = 16_777_216;

/**
 * The most cells one sheet is read into, rows times their width, rows repeated and blank
 * rows between rows counted: past every real sheet (Excel's full height at 95 columns), short
 * of what a few bytes of repeated rows and columns spell (an 818-byte OpenDocument file can
 * name 17 billion cells). Counted before a repeat is made.
 */
export const MAX_SHEET_CELLS = 100_000_000;

/**
 * The most characters one sheet is read into, each cell counted as one plus its text, every
 * time a repeat or a shared text places it: a text reused on a million rows costs each of
 * them.
 */
export const MAX_SHEET_CHARS = 4 * 1024 * 1024 * 1024;

/** A sheet larger than the reader takes: the file spells far more than it holds. */
export function tooLarge(rowNumber: number, what: 'cells' | 'characters'): SourceFailure {
  const limit = what === 'cells' ? MAX_SHEET_CELLS : MAX_SHEET_CHARS;
  return new SourceFailure(
    'format-error',
    `the sheet holds more than ${limit.toLocaleString('en-US')} ${what} by row ${String(rowNumber)} (repeated rows and cells counted), the most read of a sheet`,
  );
}

/**
 * The most characters one cell's text may have here: far past Excel's own 32,767, short of
 * what a string can hold, so that a compressed part that inflates to one huge text (a zip
 * bomb) is an error and not a crash.
 */
export const MAX_CELL_CHARS = 16 * 1024 * 1024;

/** Appends text to a cell's, refusing past MAX_CELL_CHARS. */
export function appendCellText(cell: string, text: string): string {
  if (cell.length + text.length > MAX_CELL_CHARS) throw cellTooLong();
  return cell + text;
}

/** More sheets, relationships or styles than a workbook has: Excel's cell styles end at 64,000. */
const MAX_WORKBOOK_ENTRIES = 100_000;

/** Refuses a workbook whose list of `what` has grown to `count`, past MAX_WORKBOOK_ENTRIES. */
export function checkEntries(count: number, what: string): void {
  if (count > MAX_WORKBOOK_ENTRIES)
    throw new SourceFailure(
      'format-error',
      `the workbook lists more than ${MAX_WORKBOOK_ENTRIES.toLocaleString('en-US')} ${what}, more than a workbook has`,
    );
}

/** A cell's text past MAX_CELL_CHARS. */
export function cellTooLong(): SourceFailure {
  return new SourceFailure(
    'format-error',
    `a cell holds more than ${MAX_CELL_CHARS.toLocaleString('en-US')} characters, more than a workbook cell can`,
  );
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
