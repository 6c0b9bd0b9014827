import { descriptorIn, readDescriptorFile } from '@data/core';
import { packageShape } from '@data/core';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Field, Package, Resource } from '@data/core';
import {
  derivedOf,
  formatOf,
  isDerived,
  resourceName,
  resourcePaths,
  resourcesOf,
} from '@data/core';
import { isTable } from '@data/core';
import { isSpreadsheet } from '@data/core';
import { firstRecords } from '@data/core';
import { isRemote, unsafeReason } from '@data/core';
import { json, send, type HttpFetch } from '@data/core';

export interface FieldInfo {
  name: string;
  type: string;
  format: string | undefined;
  description: string | undefined;
}

export interface ResourceInfo {
  name: string;
  format: string;
  /** Where the data is: a path or URL, or "inline" for data in the descriptor. */
  source: string;
  bytes: number | undefined;
  rows: number | undefined;
  preview: string[][] | undefined;
  /** The fields of an inline schema; undefined when the schema is elsewhere or absent. */
  fields: FieldInfo[] | undefined;
  /** For a local table, as validation reads it: its encoding, delimiter and header rows. */
  encoding?: string | undefined;
  /** For a local workbook: its sheets and their rows (the table is its dialect's sheet). */
  sheets?: { name: string; rows: number | undefined }[] | undefined;
  delimiter?: string | undefined;
  headerRows?: number[] | undefined;
}

export interface DatasetInfo {
  name: string | undefined;
  title: string | undefined;
  description: string | undefined;
  /** Each licence's name, title or path. */
  licenses: string[];
  version: string | undefined;
  resources: ResourceInfo[];
}

function fieldsOf(schema: unknown): FieldInfo[] | undefined {
  const fields = (schema as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return undefined;
  // The hub's descriptor is read before any validation: each property's type is checked.
  return fields.map((field: Partial<Field>) => ({
    name: String(field.name),
    type: typeof field.type === 'string' ? field.type : 'any',
    format:
      typeof field.format === 'string' && field.format !== 'default' ? field.format : undefined,
    description: typeof field.description === 'string' ? field.description : undefined,
  }));
}

/** Inline data as rows of text, a header first: arrays of values, or objects by key. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function inlineRows(data: unknown): string[][] | undefined {
  if (!Array.isArray(data) || data.length === 0) return undefined;
  const rows = data as unknown[];
  if (Array.isArray(rows[0])) return (rows as unknown[][]).map((row) => row.map(cellText));
  const records = rows.filter(
    (row): row is Record<string, unknown> => row !== null && typeof row === 'object',
  );
  const keys = [...new Set(records.flatMap((row) => Object.keys(row)))];
  return [keys, ...records.map((row) => keys.map((key) => cellText(row[key])))];
}

function licenseNames(listed: unknown): string[] {
  const licenses = Array.isArray(listed) ? listed : [];
  return licenses.flatMap((license: Record<string, unknown>) => {
    const name = license.title ?? license.name ?? license.path;
    return typeof name === 'string' ? [name] : [];
  });
}

const PREVIEW_BYTES = 64 * 1024;
const PREVIEW_ROWS = 5;
/** Local tables up to this size have their rows counted: the whole file is read. */
const COUNT_BYTES = 64 * 1024 * 1024;

/** What the one reading of a file (validator/reading.ts) and a read of its rows say of it. */
interface LocalTable {
  /** A workbook's sheets: the table is the one its dialect names, or the first. */
  sheets?: { name: string; rows: number | undefined }[];
  format: string | undefined;
  encoding: string | undefined;
  delimiter: string | undefined;
  headerRows: number[];
  bytes: number;
  rows: number | undefined;
  preview: string[][];
}

/** How many data rows a local table has, read as validation reads it. */
async function rowCount(
  resource: Resource,
  dir: string,
  signal: AbortSignal | undefined,
): Promise<number> {
  const { readRows } = await import('@data/core');
  let rows = 0;
  await readRows(
    resource,
    { dir },
    { fetch: () => Promise.reject(new Error('local files only')), signal, typed: false },
    { labels: () => undefined, row: () => rows++, open: true },
  );
  return rows;
}

/**
 * A workbook's sheets, each with its rows when the file is small enough to count them: the
 * table's own sheet (its dialect's, or the first) as read, the others from their first row.
 */
async function sheetsOf(
  resource: Resource,
  dir: string,
  own: number | undefined,
  signal: AbortSignal | undefined,
): Promise<{ name: string; rows: number | undefined }[]> {
  const { sheetNames } = await import('@data/core');
  const names = await sheetNames(join(dir, String(resource.path)));
  const declared = typeof resource.dialect === 'object' ? resource.dialect : {};
  const ownName = declared.sheetName ?? names[(declared.sheetNumber ?? 1) - 1];
  const sheets = [];
  for (const name of names)
    sheets.push({
      name,
      rows:
        own === undefined || name === ownName
          ? own
          : await rowCount({ ...resource, dialect: { sheetName: name } }, dir, signal),
    });
  return sheets;
}

/**
 * A local table read as validation reads it: decoded in its encoding (its BOM left out),
 * split by its dialect (declared, else sniffed), its header where the dialect puts it, and
 * its rows counted as records, not lines (a quoted cell may hold a line break).
 */
async function localTable(
  resource: Resource,
  dir: string,
  signal: AbortSignal | undefined,
): Promise<LocalTable> {
  const { readingOf } = await import('@data/core');
  const { readRows } = await import('@data/core');
  const { cellText } = await import('@data/core');
  const reading = await readingOf(resource, { dir }, signal);
  const paths = Array.isArray(resource.path) ? resource.path : [resource.path ?? ''];
  const sizes = await Promise.all(paths.map(async (path) => (await stat(join(dir, path))).size));
  const bytes = sizes.reduce((sum, size) => sum + size, 0);
  const counted = bytes <= COUNT_BYTES;
  const preview: string[][] = [];
  let rows = 0;
  const declared = typeof resource.dialect === 'object' ? resource.dialect : undefined;
  await readRows(
    { ...resource, ...(reading.properties.format ? { format: reading.properties.format } : {}) },
    { dir },
    { fetch: () => Promise.reject(new Error('local files only')), signal, typed: false },
    {
      labels: (labels) => {
        if (labels.length > 0) preview.push(labels);
      },
      row: (values) => {
        rows++;
        if (preview.length <= PREVIEW_ROWS) preview.push(values.map(cellText));
      },
      get open() {
        return counted || preview.length <= PREVIEW_ROWS;
      },
    },
  );
  const sheets =
    isSpreadsheet(reading.format) && paths.length === 1
      ? await sheetsOf(resource, dir, counted ? rows : undefined, signal)
      : undefined;
  return {
    ...(sheets ? { sheets } : {}),
    format: reading.format,
    encoding: reading.encoding,
    delimiter: reading.delimiter,
    headerRows: declared?.header === false ? [] : (declared?.headerRows ?? [1]),
    bytes,
    rows: counted ? rows : undefined,
    preview,
  };
}

async function remoteHead(
  fetch: HttpFetch,
  url: string,
): Promise<{ text: string; bytes: number | undefined }> {
  const response = await send(fetch, `read ${url}`, url, {
    headers: { Range: `bytes=0-${String(PREVIEW_BYTES - 1)}` },
  });
  const text = (await response.text()).slice(0, PREVIEW_BYTES);
  const total =
    /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ??
    response.headers.get('content-length');
  return { text, bytes: total ? Number(total) : undefined };
}

/**
 * Title, description and a summary of each resource, with the first rows of each table;
 * `fetch` carries the hub's token where it belongs (see credential.ts).
 */
export async function datasetInfo(
  location: { descriptorUrl?: string; dir?: string; descriptor?: Package },
  fetch: HttpFetch,
  signal?: AbortSignal,
): Promise<DatasetInfo> {
  const file = location.dir
    ? ((await descriptorIn(location.dir)) ?? join(location.dir, 'datapackage.json'))
    : undefined;
  const descriptor = location.descriptor
    ? location.descriptor
    : packageShape(
        file
          ? await readDescriptorFile(file)
          : await json('info', await send(fetch, 'info', location.descriptorUrl ?? '')),
        file ?? location.descriptorUrl ?? 'the descriptor',
      );
  const resources: ResourceInfo[] = [];
  // The hub's copies of each table (CSV, JSON, Parquet, previews, the zip) are not tables
  // of the dataset: `data get --format` fetches them.
  const listed = resourcesOf(descriptor);
  const described = listed.filter((resource) => !isDerived(resource));
  for (const resource of described) {
    const path = typeof resource.path === 'string' ? resource.path : undefined;
    // The one format rule, as validate reads it (model/format.ts).
    const format = formatOf(resource) ?? '';
    let bytes = typeof resource.bytes === 'number' ? resource.bytes : undefined;
    let rows: number | undefined;
    let preview: string[][] | undefined;
    let read: Pick<LocalTable, 'encoding' | 'delimiter' | 'headerRows' | 'sheets'> | undefined;
    let shownFormat = format;
    // The hub counts a table's rows as it validates it, and says so on its copies.
    const counted = (
      derivedOf(listed, 'derived/csv', resource.name)?.datahub as { rows?: unknown } | undefined
    )?.rows;
    if (typeof counted === 'number') rows = counted;
    const inline = inlineRows(resource.data);
    if (inline) {
      rows = Math.max(0, inline.length - 1);
      preview = inline.slice(0, PREVIEW_ROWS + 1);
    }
    const paths = resourcePaths(resource);
    const local =
      location.dir !== undefined &&
      resource.data === undefined &&
      paths.length > 0 &&
      paths.every((part) => !isRemote(part) && !unsafeReason(part, 2));
    if (local && location.dir !== undefined && isTable(resource)) {
      const table = await localTable(resource, location.dir, signal);
      ({ rows, preview } = table);
      bytes ??= table.bytes;
      read = table;
      shownFormat = table.format ?? format;
    } else if (local && location.dir !== undefined && resource.data === undefined) {
      // A file that is missing is validate's to report; info shows what is there.
      const sizes = await Promise.all(
        paths.map((part) =>
          stat(join(location.dir ?? '', part)).then(
            (info) => info.size,
            () => Number.NaN,
          ),
        ),
      );
      const total = sizes.reduce((sum, size) => sum + size, 0);
      if (!Number.isNaN(total)) bytes ??= total;
    } else if (
      path &&
      (isRemote(path) || (location.dir === undefined && !unsafeReason(path, 2))) &&
      (format === 'csv' || format === 'tsv')
    ) {
      const head = await remoteHead(fetch, new URL(path, location.descriptorUrl).href);
      bytes ??= head.bytes;
      const dialect = resource.dialect as { delimiter?: string } | undefined;
      const delimiter = dialect?.delimiter ?? (format === 'tsv' ? '\t' : ',');
      // The header and PREVIEW_ROWS rows.
      preview = firstRecords(head.text, delimiter, PREVIEW_ROWS + 1);
    }
    const source =
      resource.data !== undefined
        ? 'inline'
        : Array.isArray(resource.path)
          ? resource.path.join(' + ')
          : (path ?? '');
    resources.push({
      name: resourceName(resource),
      format: shownFormat || (resource.data !== undefined ? 'inline' : ''),
      source,
      bytes,
      rows,
      ...(read
        ? {
            encoding: read.encoding,
            delimiter: read.delimiter,
            headerRows: read.headerRows,
            ...(read.sheets ? { sheets: read.sheets } : {}),
          }
        : {}),
      preview,
      fields: fieldsOf(resource.schema),
    });
  }
  const text = (key: string): string | undefined =>
    typeof descriptor[key] === 'string' ? descriptor[key] : undefined;
  return {
    name: text('name'),
    title: text('title'),
    description: text('description'),
    licenses: licenseNames(descriptor.licenses),
    version: text('version'),
    resources,
  };
}
