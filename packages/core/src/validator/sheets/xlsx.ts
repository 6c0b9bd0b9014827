import { posix } from 'node:path';
import { SourceFailure } from '../location.js';
import {
  builtInDateKind,
  dateKindOfFormat,
  isoDate,
  serialDate,
  type SheetDateKind,
} from './cells.js';
import {
  appendCellText,
  checkEntries,
  isChosen,
  MAX_SHEET_COLUMNS,
  noSuchSheet,
  tooWide,
  unescapeOoxml,
  type EmitRow,
  type SheetChoice,
} from './workbook.js';
import { StringStore } from './string-store.js';
import type { ZipParts } from './zip.js';

interface Relationship {
  type: string;
  target: string;
}

const REL_TYPES = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';

/** Reads one worksheet of an Office Open XML workbook, row by row, as the sheet streams. */
export async function readXlsx(
  zip: ZipParts,
  choice: SheetChoice,
  emit: EmitRow,
  stop: () => boolean,
  maxSharedTextBytes?: number,
): Promise<boolean> {
  const rootRels = await readRels(zip, '_rels/.rels');
  const workbookPath =
    [...rootRels.values()].find((rel) => rel.type.endsWith('/officeDocument'))?.target ??
    'xl/workbook.xml';
  const book = await readWorkbook(zip, workbookPath);
  const position = book.sheets.findIndex((sheet, index) => isChosen(choice, sheet.name, index + 1));
  const sheet = book.sheets[position];
  if (!sheet)
    throw noSuchSheet(
      choice,
      book.sheets.map((each) => each.name),
    );
  const rels = await readRels(zip, relsPathOf(workbookPath));
  const rel = rels.get(sheet.relId);
  if (!rel || rel.type !== `${REL_TYPES}worksheet`)
    throw new SourceFailure('format-error', `sheet "${sheet.name}" is not a worksheet (a chart?)`);
  const related = (kind: string): string | undefined =>
    [...rels.values()].find((each) => each.type === `${REL_TYPES}${kind}`)?.target;
  const stringsPath = related('sharedStrings');
  const stylesPath = related('styles');
  const strings =
    stringsPath && zip.has(stringsPath)
      ? await readSharedStrings(zip, stringsPath, maxSharedTextBytes)
      : new StringStore();
  const dateStyles = stylesPath && zip.has(stylesPath) ? await readDateStyles(zip, stylesPath) : [];
  return readWorksheet(
    zip,
    rel.target,
    { strings, dateStyles, date1904: book.date1904 },
    emit,
    stop,
  );
}

function relsPathOf(part: string): string {
  return posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`);
}

async function readRels(zip: ZipParts, path: string): Promise<Map<string, Relationship>> {
  const rels = new Map<string, Relationship>();
  if (!zip.has(path)) return rels;
  const dir = posix.dirname(posix.dirname(path));
  await zip.walk(path, {
    open(name, attributes) {
      const { Id: id, Type: type, Target: target, TargetMode: mode } = attributes;
      if (name !== 'Relationship' || !id || !type || !target || mode === 'External') return;
      const resolved = target.startsWith('/') ? target.slice(1) : posix.join(dir, target);
      rels.set(id, { type, target: posix.normalize(resolved) });
      checkEntries(rels.size, 'relationships');
    },
  });
  return rels;
}

async function readWorkbook(
  zip: ZipParts,
  path: string,
): Promise<{ sheets: { name: string; relId: string }[]; date1904: boolean }> {
  const sheets: { name: string; relId: string }[] = [];
  let date1904 = false;
  await zip.walk(path, {
    open(name, attributes) {
      if (name === 'workbookPr') {
        const flag = attributes.date1904;
        date1904 = flag === '1' || flag === 'true';
      } else if (name === 'sheet') {
        const idKey = Object.keys(attributes).find((key) => key.endsWith(':id'));
        sheets.push({ name: attributes.name ?? '', relId: idKey ? (attributes[idKey] ?? '') : '' });
        checkEntries(sheets.length, 'sheets');
      }
    },
  });
  return { sheets, date1904 };
}

/** The shared string table: every text cell of the workbook points into it. */
async function readSharedStrings(
  zip: ZipParts,
  path: string,
  maxBytes: number | undefined,
): Promise<StringStore> {
  const strings = new StringStore(maxBytes);
  let current = '';
  let inText = false;
  let phonetic = 0;
  await zip.walk(path, {
    open(name, _attributes, selfClosing) {
      if (name === 'si') current = '';
      else if (name === 'rPh') phonetic += selfClosing ? 0 : 1;
      else if (name === 't') inText = !selfClosing;
    },
    close(name) {
      if (name === 'si') strings.add(unescapeOoxml(current));
      else if (name === 'rPh') phonetic--;
      else if (name === 't') inText = false;
    },
    text(text) {
      if (inText && phonetic === 0) current = appendCellText(current, text);
    },
  });
  return strings;
}

/** For each cell style (by its index), the date parts its number format shows, if any. */
async function readDateStyles(zip: ZipParts, path: string): Promise<(SheetDateKind | undefined)[]> {
  const formats = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellXfs = false;
  await zip.walk(path, {
    open(name, attributes, selfClosing) {
      if (name === 'numFmt') {
        formats.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
        checkEntries(formats.size, 'number formats');
      } else if (name === 'cellXfs') inCellXfs = !selfClosing;
      else if (name === 'xf' && inCellXfs) {
        styleFormats.push(Number(attributes.numFmtId ?? 0));
        checkEntries(styleFormats.length, 'cell styles');
      }
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return styleFormats.map((id) => {
    const code = formats.get(id);
    return code === undefined ? builtInDateKind(id) : dateKindOfFormat(code);
  });
}

interface SheetContext {
  strings: StringStore;
  dateStyles: readonly (SheetDateKind | undefined)[];
  date1904: boolean;
}

/** The column of a cell reference (`AB12` is 27), from 0. */
function columnOf(ref: string, rowNumber: number): number {
  let column = 0;
  for (let i = 0; i < ref.length; i++) {
    const code = ref.charCodeAt(i);
    if (code < 65 || code > 90) break;
    column = column * 26 + code - 64;
    if (column > MAX_SHEET_COLUMNS) throw tooWide(rowNumber);
  }
  return column - 1;
}

async function readWorksheet(
  zip: ZipParts,
  path: string,
  context: SheetContext,
  emit: EmitRow,
  stop: () => boolean,
): Promise<boolean> {
  let rowNumber = 0;
  let cells: unknown[] = [];
  let column = 0;
  let type = 'n';
  let style = 0;
  let value = '';
  let capture = false;
  let inInline = false;
  let phonetic = 0;
  return zip.walk(
    path,
    {
      open(name, attributes, selfClosing) {
        switch (name) {
          case 'row':
            rowNumber = attributes.r ? Number(attributes.r) : rowNumber + 1;
            cells = [];
            column = 0;
            if (selfClosing) emit(rowNumber, cells);
            break;
          case 'c':
            column = attributes.r ? columnOf(attributes.r, rowNumber) : column;
            if (column >= MAX_SHEET_COLUMNS) throw tooWide(rowNumber);
            type = attributes.t ?? 'n';
            style = attributes.s ? Number(attributes.s) : 0;
            value = '';
            break;
          case 'v':
            capture = !selfClosing;
            break;
          case 'is':
            inInline = !selfClosing;
            break;
          case 'rPh':
            phonetic += selfClosing ? 0 : 1;
            break;
          case 't':
            capture = inInline && phonetic === 0 && !selfClosing;
            break;
        }
      },
      close(name) {
        switch (name) {
          case 'v':
          case 't':
            capture = false;
            break;
          case 'is':
            inInline = false;
            break;
          case 'rPh':
            phonetic--;
            break;
          case 'c':
            cells[column] = cellValue(type, style, value, context);
            column++;
            break;
          case 'row':
            emit(rowNumber, cells);
            break;
        }
      },
      text(text) {
        if (capture) value = appendCellText(value, text);
      },
    },
    stop,
  );
}

function cellValue(type: string, style: number, text: string, context: SheetContext): unknown {
  switch (type) {
    case 's': {
      const shared = context.strings.get(Number(text));
      if (shared === undefined)
        throw new SourceFailure(
          'format-error',
          `the workbook is damaged: no shared string ${text}`,
        );
      return shared;
    }
    case 'str':
    case 'inlineStr':
      return unescapeOoxml(text);
    case 'b':
      return text === '' ? null : text === '1' || text === 'true';
    case 'e':
      return text;
    case 'd':
      return text === '' ? null : (isoDate(text) ?? text);
  }
  if (text === '') return null;
  const number = Number(text);
  if (Number.isNaN(number)) return text;
  const kind = context.dateStyles[style];
  return kind ? serialDate(number, kind, context.date1904) : number;
}
