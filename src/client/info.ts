import { descriptorIn, readDescriptorFile } from '../files/descriptor-file.js';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileHead } from '../files/chunks.js';
import { firstRecords } from '../validator/table/csv-parser.js';
import { isRemote, unsafeReason } from '../validator/descriptor/paths.js';
import { json, send, type HttpFetch } from './http.js';

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
  return fields.map((field: Record<string, unknown>) => ({
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

function licenseNames(descriptor: Record<string, unknown>): string[] {
  const licenses = Array.isArray(descriptor.licenses) ? descriptor.licenses : [];
  return licenses.flatMap((license: Record<string, unknown>) => {
    const name = license.title ?? license.name ?? license.path;
    return typeof name === 'string' ? [name] : [];
  });
}

const PREVIEW_BYTES = 64 * 1024;
const PREVIEW_ROWS = 5;

async function localHead(
  path: string,
): Promise<{ text: string; bytes: number; rows: number | undefined }> {
  const info = await stat(path);
  if (info.size <= 8 * 1024 * 1024) {
    const text = await readFile(path, 'utf8');
    const lines = text.split(/\r?\n/).filter((line) => line !== '').length;
    return { text: text.slice(0, PREVIEW_BYTES), bytes: info.size, rows: Math.max(0, lines - 1) };
  }
  const text = (await fileHead(path, PREVIEW_BYTES)).toString('utf8');
  return { text, bytes: info.size, rows: undefined };
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

/** The first bytes of a resource: a local file of the package, or a URL (relative to a remote descriptor). */
async function headOf(
  path: string,
  location: { descriptorUrl?: string; dir?: string },
  fetch: HttpFetch,
): Promise<{ text: string; bytes: number | undefined; rows?: number | undefined }> {
  if (location.dir !== undefined && !isRemote(path)) return localHead(join(location.dir, path));
  return remoteHead(fetch, new URL(path, location.descriptorUrl).href);
}

/**
 * Title, description and a summary of each resource, with the first rows of each table;
 * `fetch` carries the hub's token where it belongs (see credential.ts).
 */
export async function datasetInfo(
  location: { descriptorUrl?: string; dir?: string; descriptor?: Record<string, unknown> },
  fetch: HttpFetch,
): Promise<DatasetInfo> {
  const descriptor = location.descriptor
    ? location.descriptor
    : location.dir
      ? ((await readDescriptorFile(
          (await descriptorIn(location.dir)) ?? join(location.dir, 'datapackage.json'),
        )) as Record<string, unknown>)
      : ((await json('info', await send(fetch, 'info', location.descriptorUrl ?? ''))) as Record<
          string,
          unknown
        >);
  const resources: ResourceInfo[] = [];
  for (const resource of (descriptor.resources ?? []) as Record<string, unknown>[]) {
    const path = typeof resource.path === 'string' ? resource.path : undefined;
    const format =
      typeof resource.format === 'string'
        ? resource.format
        : (/\.([a-z0-9]+)$/i.exec(path ?? '')?.[1]?.toLowerCase() ?? '');
    let bytes = typeof resource.bytes === 'number' ? resource.bytes : undefined;
    let rows: number | undefined;
    let preview: string[][] | undefined;
    const inline = inlineRows(resource.data);
    if (inline) {
      rows = Math.max(0, inline.length - 1);
      preview = inline.slice(0, PREVIEW_ROWS + 1);
    }
    const readable = path !== undefined && (isRemote(path) || !unsafeReason(path, 2));
    if (path && readable && (format === 'csv' || format === 'tsv')) {
      const head = await headOf(path, location, fetch);
      bytes ??= head.bytes;
      rows = head.rows;
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
      name: String(resource.name),
      format: format || (resource.data !== undefined ? 'inline' : ''),
      source,
      bytes,
      rows,
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
    licenses: licenseNames(descriptor),
    version: text('version'),
    resources,
  };
}
