import { readFile, stat } from 'node:fs/promises';
import { SourceFailure } from '../location.js';
import { dateKindOfFormat, serialDate } from './cells.js';
import { checkCompoundFile } from './compound-file.js';
import { isChosen, noSuchSheet, type EmitRow, type SheetChoice } from './workbook.js';

/**
 * A legacy binary workbook is read whole: the format cannot be streamed, and it caps a sheet
 * at 65,536 rows of 256 columns, which bounds what a real one holds. Bigger files are refused
 * before they are read.
 */
export const MAX_XLS_BYTES = 256 * 1024 * 1024;

const ERRORS: Record<number, string> = {
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
};

export async function readXls(
  path: string,
  choice: SheetChoice,
  emit: EmitRow,
  stop: () => boolean,
): Promise<boolean> {
  if ((await stat(path)).size > MAX_XLS_BYTES)
    throw new SourceFailure(
      'source-error',
      `the .xls workbook is larger than ${String(MAX_XLS_BYTES / 1024 / 1024)} MB, the most read of this legacy format; save it as .xlsx`,
    );
  // Loaded on first use: the library is large, and most runs never meet an .xls file.
  const { read } = await import('@e965/xlsx');
  const bytes = await readFile(path);
  checkCompoundFile(bytes);
  // Formulas are read by the values saved with them: their text, which SheetJS would build
  // by following shared and array formulas into one another, is never asked for.
  const options = {
    type: 'buffer',
    dense: true,
    cellNF: true,
    cellHTML: false,
    cellFormula: false,
  } as const;
  const readOrRefuse = (more: Parameters<typeof read>[1]): ReturnType<typeof read> => {
    try {
      return read(bytes, { ...options, ...more });
    } catch (error) {
      throw new SourceFailure(
        'format-error',
        `the .xls workbook cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const names = readOrRefuse({ bookSheets: true }).SheetNames;
  const position = names.findIndex((name, index) => isChosen(choice, name, index + 1));
  const name = names[position];
  if (name === undefined) throw noSuchSheet(choice, names);
  const book = readOrRefuse({ sheets: position });
  const date1904 = book.Workbook?.WBProps?.date1904 === true;
  const data = (book.Sheets[name]?.['!data'] ?? []) as (
    { t: string; v?: unknown; w?: string; z?: unknown }[] | undefined
  )[];
  for (let row = 0; row < data.length && !stop(); row++) {
    const cells = data[row];
    if (!cells) continue;
    emit(
      row + 1,
      Array.from(cells, (cell) => (cell ? cellValue(cell, date1904) : null)),
    );
  }
  return !stop();
}

function cellValue(
  cell: { t: string; v?: unknown; w?: string; z?: unknown },
  date1904: boolean,
): unknown {
  const value = cell.v;
  switch (cell.t) {
    case 'n': {
      if (typeof value !== 'number') return null;
      const kind = typeof cell.z === 'string' ? dateKindOfFormat(cell.z) : undefined;
      return kind ? serialDate(value, kind, date1904) : value;
    }
    case 's':
      return typeof value === 'string' && value !== '' ? value : null;
    case 'b':
      return value === true;
    case 'e':
      return cell.w ?? ERRORS[value as number] ?? '#ERROR';
    default:
      return null;
  }
}
