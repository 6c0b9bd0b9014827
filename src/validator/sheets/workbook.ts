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

export function describeChoice(choice: SheetChoice): string {
  if (choice.name !== undefined) return `sheet "${choice.name}"`;
  return `sheet ${String(choice.number ?? 1)}`;
}

export function isChosen(choice: SheetChoice, name: string, position: number): boolean {
  if (choice.name !== undefined) return choice.name === name;
  return (choice.number ?? 1) === position;
}

/** The error for a sheet the workbook does not have, naming those it has. */
export function noSuchSheet(choice: SheetChoice, names: readonly string[]): SourceFailure {
  const list = names.map((name, index) => `${String(index + 1)}. "${name}"`).join(', ');
  return new SourceFailure(
    'format-error',
    `the workbook has no ${describeChoice(choice)}; its sheets are ${list || 'none'}`,
  );
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
