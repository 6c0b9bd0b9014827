import { isRemote } from '../model/paths.js';
import type {
  DialectDescriptor,
  FieldDescriptor,
  ResourceDescriptor,
  SchemaDescriptor,
} from './descriptor/types.js';
import {
  localContentFormat,
  CONTENT_WORDS,
  TABLE_CONTENT,
  type ContentFormat,
} from '../files/content-format.js';
import { locate, SourceFailure, type Base, type Fetch } from './location.js';
import { formatOf, isTableFormat } from '../model/format.js';
import { noteContentFormat } from './resource.js';
import { inferSchema, INFER_ROWS } from './schema/infer.js';
import { casterFor, INVALID } from './schema/types/index.js';
import { resolveDialect } from './table/dialect.js';
import {
  bomOf,
  canonicalEncoding,
  detectEncoding,
  EncodingFailure,
  isSupported,
  SAMPLE_BYTES,
} from './table/encoding.js';
import { isSpreadsheet } from './sheets/formats.js';
import { readTable } from './table/read.js';
import { cellText } from './table/table-validator.js';

/**
 * How `data` reads one file, decided in one place for every command: its format (by its
 * first bytes, then its name), its encoding, its CSV dialect, which row is its header, and
 * the schema its first rows suggest. `properties` are what a descriptor must say for another
 * Frictionless reader to read the file the same way.
 */
export interface Reading {
  format: string | undefined;
  /** What the content is when it is no table (a PDF, an HTML page…), in plain words. */
  notATable?: string | undefined;
  encoding?: string | undefined;
  /** The delimiter and quote character found, and the header's row in the file. */
  delimiter?: string | undefined;
  quoteChar?: string | undefined;
  headerRow?: number | undefined;
  schema?: SchemaDescriptor | undefined;
  /** Fields renamed because the header repeats a label: [label, field name]. */
  renamed: [string, string][];
  /** The resource properties a reader needs beyond the defaults (encoding, format, dialect). */
  properties: { format?: string; encoding?: string; dialect?: DialectDescriptor };
  /** True when the properties use a v2-only property (headerRows, commentRows). */
  needsV2: boolean;
}

/** The profile a descriptor declares when it uses a property of the v2 standards. */
export const V2_PROFILE = 'https://datapackage.org/profiles/2.0/datapackage.json';

/** Rows read beyond the inference sample, to find a header below a sheet's title rows. */
const HEADER_SCAN = 20;

const fetchNothing: Fetch = () => Promise.reject(new Error('local files only'));

/**
 * A local file's format as validation decides it (its bytes when they say a table format
 * its name does not, else its name), what its name alone says, and what its bytes say.
 */
async function formatByContent(
  resource: ResourceDescriptor,
  base: Base,
): Promise<{
  format: string | undefined;
  named: string | undefined;
  content: ContentFormat | undefined;
}> {
  // A copy carries no note of its content: what the name (or mediatype) says.
  const named = formatOf({ ...resource });
  await noteContentFormat(resource, base);
  const format = formatOf(resource);
  const path = typeof resource.path === 'string' ? resource.path : undefined;
  const local = !resource.format && path !== undefined && !isRemote(path) && !base.url;
  const content =
    local && format === named ? await localContentFormat(locate(path, base)) : undefined;
  return { format, named, content: format === named ? content : (format as ContentFormat) };
}

const TEXT_NAMES = new Set(['csv', 'tsv', 'txt']);

/** The width of a row: its cells up to the last one that is not empty. */
function filledCells(cells: readonly unknown[]): number {
  return cells.filter((cell) => cellText(cell).trim() !== '').length;
}

/**
 * The index of the header among the first records: the first whose filled cells are about
 * as many as most rows have (within a tenth of them), so that a sheet's title row
 * above its header is not taken for the header. 0 when the first row is the header.
 */
export function headerIndex(records: readonly (readonly unknown[])[]): number {
  const widths = records.slice(0, HEADER_SCAN).map(filledCells);
  const tally = new Map<number, number>();
  for (const width of widths) if (width >= 2) tally.set(width, (tally.get(width) ?? 0) + 1);
  let common = 0;
  let times = 0;
  for (const [width, count] of tally)
    if (count > times || (count === times && width > common)) [common, times] = [width, count];
  if (common < 2) return 0;
  const slack = Math.floor(common / 10);
  const index = widths.findIndex((width) => width >= common - slack);
  // Only title and note rows (one cell at most) are passed over: a narrower header above
  // wider rows is the header, with extra cells in those rows.
  if (index <= 0 || widths.slice(0, index).some((width) => width > 1)) return 0;
  return index;
}

/** A field's narrower reading of text cells: decimal commas, grouped digits, dates not ISO. */
const NUMBER_CANDIDATES: Partial<FieldDescriptor>[] = [
  { decimalChar: ',' },
  { decimalChar: ',', groupChar: '.' },
  { decimalChar: ',', groupChar: ' ' },
  { groupChar: ',' },
];
const DATE_FORMATS = ['%d.%m.%Y', '%d/%m/%Y', '%m/%d/%Y', '%Y/%m/%d', '%d-%m-%Y', '%Y.%m.%d'];
const DATETIME_FORMATS = [
  '%Y-%m-%d %H:%M:%S',
  '%Y-%m-%d %H:%M',
  '%d.%m.%Y %H:%M:%S',
  '%d.%m.%Y %H:%M',
  '%d/%m/%Y %H:%M',
];

function fitsAll(field: FieldDescriptor, values: readonly string[]): boolean {
  const cast = casterFor(field, 2);
  return values.every((value) => cast(value) !== INVALID);
}

/** A string field whose every sampled value is a number or date written another way. */
function narrowed(field: FieldDescriptor, values: readonly string[]): FieldDescriptor {
  if (field.type !== 'string' || values.length === 0) return field;
  // Dates first: `28.02.2024` is a date before it is a number grouped by dots.
  for (const format of DATE_FORMATS) {
    const date = { ...field, type: 'date', format };
    if (fitsAll(date, values)) return date;
  }
  for (const format of DATETIME_FORMATS) {
    const datetime = { ...field, type: 'datetime', format };
    if (fitsAll(datetime, values)) return datetime;
  }
  for (const candidate of NUMBER_CANDIDATES) {
    const written = numberWritten(candidate);
    if (!values.every((value) => written.test(value.trim()))) continue;
    const number = { ...field, type: 'number', ...candidate };
    if (fitsAll(number, values)) return number;
  }
  return field;
}

/**
 * A number as people write it with these characters: digits grouped by threes (a phone
 * number's `030 1234567` is no number), then the decimal part.
 */
function numberWritten({ decimalChar = '.', groupChar }: Partial<FieldDescriptor>): RegExp {
  const escape = (char: string): string => char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const whole = groupChar ? `\\d{1,3}(?:${escape(groupChar)}\\d{3})*` : '\\d+';
  return new RegExp(`^[-+]?${whole}(?:${escape(decimalChar)}\\d+)?$`);
}

/** Field names made unique: a repeated label's field gets `_2`, `_3`… */
function uniqueNames(fields: FieldDescriptor[]): {
  fields: FieldDescriptor[];
  renamed: [string, string][];
} {
  const taken = new Set<string>();
  const renamed: [string, string][] = [];
  const unique = fields.map((field) => {
    let name = field.name;
    for (let suffix = 2; taken.has(name); suffix++) name = `${field.name}_${String(suffix)}`;
    taken.add(name);
    if (name !== field.name) renamed.push([field.name, name]);
    return name === field.name ? field : { ...field, name };
  });
  return { fields: unique, renamed };
}

/** Reads the first rows of a table: cells as read, and the encoding and dialect found. */
async function firstRecords(
  resource: ResourceDescriptor,
  format: string | undefined,
  base: Base,
  signal: AbortSignal | undefined,
): Promise<{
  records: unknown[][];
  rowNumbers: number[];
  encoding: string | undefined;
  delimiter: string | undefined;
  quoteChar: string | undefined;
}> {
  const records: unknown[][] = [];
  const rowNumbers: number[] = [];
  const wanted = INFER_ROWS + HEADER_SCAN;
  const sink = {
    record: (cells: readonly unknown[], rowNumber?: number) => {
      if (records.length >= wanted) return;
      records.push([...cells]);
      rowNumbers.push(rowNumber ?? records.length);
    },
    get open() {
      return records.length < wanted;
    },
  };
  const dialect = typeof resource.dialect === 'object' ? resource.dialect : undefined;
  let result;
  try {
    result = await readTable(
      {
        locations: (Array.isArray(resource.path) ? resource.path : [resource.path ?? '']).map(
          (path) => locate(path, base),
        ),
        encoding: resource.encoding,
        dialect,
        defaultDelimiter: format === 'tsv' ? '\t' : undefined,
        format,
        hashes: [],
        fetch: fetchNothing,
        signal,
      },
      sink,
    );
  } catch (error) {
    // Bad bytes further on are the full read's to report, with their row.
    if (!(error instanceof EncodingFailure) || records.length === 0) throw error;
  }
  return {
    records,
    rowNumbers,
    encoding: result?.encoding,
    delimiter: result?.dialect?.csv.delimiter,
    quoteChar: result?.dialect?.csv.quoteChar ?? undefined,
  };
}

/**
 * The reading of a local resource under `base`: what it is, how it is written, and the
 * schema its first rows suggest, with numbers and dates written in other ways recognised.
 * A file whose content is no table (a PDF, an HTML page, binary data) under a table's name
 * is a SourceFailure of type format-error, as validation reports it.
 */
export async function readingOf(
  resource: ResourceDescriptor,
  base: Base,
  signal?: AbortSignal,
): Promise<Reading> {
  const { format, named, content } = await formatByContent(resource, base);
  const reading: Reading = { format, renamed: [], properties: {}, needsV2: false };
  if (format !== named && format !== undefined) reading.properties.format = format;
  // A workbook under another workbook's name is its name's to read (and to call damaged).
  const workbookNamed = named !== undefined && isTableFormat(named) && !TEXT_NAMES.has(named);
  if (content && !TABLE_CONTENT.has(content) && !(content === 'zip' && workbookNamed))
    reading.notATable = CONTENT_WORDS[content];
  if (format === undefined || !isTableFormat(format) || resource.data !== undefined) return reading;
  if (reading.notATable)
    throw new SourceFailure('format-error', `the data is ${reading.notATable}, not delimited text`);
  const read = await firstRecords(resource, format, base, signal);
  if (read.records.length === 0) throw new SourceFailure('source-error', 'the source is empty');
  const declared = typeof resource.dialect === 'object' ? resource.dialect : undefined;
  // A sheet's title rows above its header; a text table's first row is its header, as the
  // CSV Dialect says (a title line there is the data's error to report).
  const index =
    declared?.header === false || declared?.headerRows || !isSpreadsheet(format)
      ? 0
      : headerIndex(read.records);
  const labels = declared?.header === false ? [] : (read.records[index] ?? []).map(cellText);
  const rows = read.records.slice(
    declared?.header === false ? 0 : index + 1,
    index + 1 + INFER_ROWS,
  );
  const inferred = inferSchema(labels, rows);
  const fields = inferred.fields.map((field, column) =>
    narrowed(
      field,
      rows
        .map((row) => row[column])
        .filter((value): value is string => typeof value === 'string' && value !== ''),
    ),
  );
  const unique = uniqueNames(fields);
  reading.schema = { ...inferred, fields: unique.fields };
  reading.renamed = unique.renamed;
  reading.encoding = read.encoding && canonicalEncoding(read.encoding);
  reading.delimiter = read.delimiter;
  reading.quoteChar = read.quoteChar;
  reading.headerRow = read.rowNumbers[index] ?? index + 1;
  if (read.encoding && read.encoding !== 'utf-8' && resource.encoding === undefined)
    reading.properties.encoding = canonicalEncoding(read.encoding);
  const dialect: DialectDescriptor = {};
  const textual = format === 'csv' || format === 'tsv' || format === 'txt';
  if (textual && read.delimiter && declared?.delimiter === undefined)
    if (read.delimiter !== (format === 'tsv' ? '\t' : ',')) dialect.delimiter = read.delimiter;
  if (textual && read.quoteChar && read.quoteChar !== '"' && declared?.quoteChar === undefined)
    dialect.quoteChar = read.quoteChar;
  if (unique.renamed.length > 0) {
    // The header names a column twice, which no header check lets pass: the fields are
    // named in the schema, and the header row is read as a comment row.
    dialect.header = false;
    dialect.commentRows = read.rowNumbers.slice(0, index + 1);
    reading.needsV2 = true;
  } else if (index > 0) {
    // Counted among the rows read, as the header's rows are (a sheet's empty rows are none).
    dialect.headerRows = [index + 1];
    reading.needsV2 = true;
  }
  if (Object.keys(dialect).length > 0) reading.properties.dialect = { ...declared, ...dialect };
  return reading;
}

/**
 * How the start of a text table is written: its encoding (a BOM, else UTF-8 when the bytes
 * are, else detected) and its delimiter and quote character (declared, else sniffed), by
 * the same rules as the reading of its rows (table/read.ts). For a reader that has only the
 * file's first bytes (the hub's pipeline, before it validates).
 */
export async function textReading(
  head: Uint8Array,
  format: string | undefined,
  declared: { encoding?: unknown; dialect?: unknown } = {},
): Promise<{ encoding: string; delimiter: string; quoteChar: string | undefined }> {
  const given =
    typeof declared.encoding === 'string' && isSupported(declared.encoding)
      ? declared.encoding
      : undefined;
  const encoding = canonicalEncoding(
    given ?? bomOf(head)?.encoding ?? (await detectEncoding(head.subarray(0, SAMPLE_BYTES))),
  );
  const text = new TextDecoder(encoding).decode(head);
  const dialect = resolveDialect(
    typeof declared.dialect === 'object' && declared.dialect !== null
      ? declared.dialect
      : undefined,
    text,
    format === 'tsv' ? '\t' : undefined,
  );
  return {
    encoding,
    delimiter: dialect.csv.delimiter,
    quoteChar: dialect.csv.quoteChar ?? undefined,
  };
}
