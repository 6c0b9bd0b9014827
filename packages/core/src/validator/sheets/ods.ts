import { isoDate, isoTime } from './cells.js';
import {
  appendCellText,
  checkEntries,
  isChosen,
  MAX_CELL_CHARS,
  MAX_SHEET_COLUMNS,
  noSuchSheet,
  tooWide,
  type EmitRow,
  type SheetChoice,
} from './workbook.js';
import type { ZipParts } from './zip.js';

/** A cell's typed value from its OpenDocument attributes, or undefined for a text cell. */
function typedValue(attributes: Record<string, string>): unknown {
  const type = attributes['office:value-type'];
  switch (type) {
    case 'float':
    case 'percentage':
    case 'currency':
      return Number(attributes['office:value']);
    case 'date': {
      const text = attributes['office:date-value'] ?? '';
      return isoDate(text) ?? text;
    }
    case 'time': {
      const text = attributes['office:time-value'] ?? '';
      return isoTime(text) ?? text;
    }
    case 'boolean':
      return attributes['office:boolean-value'] === 'true';
    case 'string':
      return attributes['office:string-value'];
    case undefined:
    default:
      return undefined;
  }
}

function repeat(attributes: Record<string, string>, name: string): number {
  const count = Number(attributes[name] ?? 1);
  return Number.isInteger(count) && count > 0 ? count : 1;
}

/**
 * Reads one table of an OpenDocument spreadsheet as content.xml streams. Runs of empty cells
 * and rows, which LibreOffice writes as one element repeated to the sheet's edge, are counted,
 * never spelled out.
 */
export async function readOds(
  zip: ZipParts,
  choice: SheetChoice,
  emit: EmitRow,
  stop: () => boolean,
): Promise<boolean> {
  const names: string[] = [];
  let selected = false;
  let done = false;
  let rowNumber = 0;
  let rowRepeat = 1;
  let cells: unknown[] = [];
  let emptyCells = 0;
  let cell: { value: unknown; repeat: number; text: string; paragraphs: number } | undefined;
  let inParagraph = 0;
  let annotation = 0;

  const addCell = (value: unknown, count: number): void => {
    if (value === null || value === undefined || value === '') {
      emptyCells += count;
      return;
    }
    if (cells.length + emptyCells + count > MAX_SHEET_COLUMNS) throw tooWide(rowNumber + 1);
    for (; emptyCells > 0; emptyCells--) cells.push(null);
    for (let i = 0; i < count; i++) cells.push(value);
  };

  const complete = await zip.walk(
    'content.xml',
    {
      open(name, attributes, selfClosing) {
        if (name === 'table' && !done) {
          names.push(attributes['table:name'] ?? '');
          checkEntries(names.length, 'sheets');
          selected = isChosen(choice, names.at(-1) ?? '', names.length);
          rowNumber = 0;
          return;
        }
        if (!selected) return;
        if (name === 'annotation') annotation += selfClosing ? 0 : 1;
        if (annotation > 0) return;
        switch (name) {
          case 'table-row':
            rowRepeat = repeat(attributes, 'table:number-rows-repeated');
            cells = [];
            emptyCells = 0;
            break;
          case 'table-cell':
          case 'covered-table-cell':
            cell = {
              value: typedValue(attributes),
              repeat: repeat(attributes, 'table:number-columns-repeated'),
              text: '',
              paragraphs: 0,
            };
            break;
          case 'p':
          case 'h':
            if (cell && cell.paragraphs++ > 0) cell.text = appendCellText(cell.text, '\n');
            inParagraph += selfClosing ? 0 : 1;
            break;
          case 's':
            if (cell && inParagraph > 0) {
              const spaces = Math.min(repeat(attributes, 'text:c'), MAX_CELL_CHARS + 1);
              cell.text = appendCellText(cell.text, ' '.repeat(spaces));
            }
            break;
          case 'tab':
            if (cell && inParagraph > 0) cell.text = appendCellText(cell.text, '\t');
            break;
          case 'line-break':
            if (cell && inParagraph > 0) cell.text = appendCellText(cell.text, '\n');
            break;
        }
      },
      close(name) {
        if (name === 'table' && selected) {
          selected = false;
          done = true;
          return;
        }
        if (!selected) return;
        if (name === 'annotation') {
          annotation--;
          return;
        }
        if (annotation > 0) return;
        switch (name) {
          case 'p':
          case 'h':
            inParagraph--;
            break;
          case 'table-cell':
          case 'covered-table-cell':
            if (cell) addCell(cell.value ?? cell.text, cell.repeat);
            cell = undefined;
            break;
          case 'table-row':
            if (cells.length > 0) emit(rowNumber + 1, cells, rowRepeat);
            rowNumber += rowRepeat;
            break;
        }
      },
      text(text) {
        if (cell && inParagraph > 0 && annotation === 0)
          cell.text = appendCellText(cell.text, text);
      },
    },
    () => done || stop(),
  );
  if (!done) {
    if (!complete) return false;
    throw noSuchSheet(choice, names);
  }
  return !stop();
}
