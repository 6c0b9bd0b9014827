import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileHead } from '../files/chunks.js';
import { firstRecords } from '../validator/table/csv-parser.js';
import { isRemote, unsafeReason } from '../validator/descriptor/paths.js';
import { json, send, tokenFor, type HttpFetch } from './http.js';

export interface ResourceInfo {
  name: string;
  format: string;
  bytes: number | undefined;
  rows: number | undefined;
  preview: string[][] | undefined;
}

export interface DatasetInfo {
  name: string | undefined;
  title: string | undefined;
  description: string | undefined;
  resources: ResourceInfo[];
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
  token: string | undefined,
): Promise<{ text: string; bytes: number | undefined }> {
  const response = await send(fetch, `read ${url}`, url, {
    headers: {
      Range: `bytes=0-${String(PREVIEW_BYTES - 1)}`,
      ...(token ? { 'Auth-Token': token } : {}),
    },
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
  token: string | undefined,
): Promise<{ text: string; bytes: number | undefined; rows?: number | undefined }> {
  if (location.dir !== undefined && !isRemote(path)) return localHead(join(location.dir, path));
  const url = new URL(path, location.descriptorUrl).href;
  return remoteHead(fetch, url, tokenFor(url, location.descriptorUrl ?? url, token));
}

/** Title, description and a summary of each resource, with the first rows of each table. */
export async function datasetInfo(
  location: { descriptorUrl?: string; dir?: string },
  fetch: HttpFetch,
  token: string | undefined,
): Promise<DatasetInfo> {
  const descriptor = location.dir
    ? (JSON.parse(await readFile(join(location.dir, 'datapackage.json'), 'utf8')) as Record<
        string,
        unknown
      >)
    : ((await json(
        'info',
        await send(fetch, 'info', location.descriptorUrl ?? '', {
          headers: token ? { 'Auth-Token': token } : {},
        }),
      )) as Record<string, unknown>);
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
    const readable = path !== undefined && (isRemote(path) || !unsafeReason(path, 2));
    if (path && readable && (format === 'csv' || format === 'tsv')) {
      const head = await headOf(path, location, fetch, token);
      bytes ??= head.bytes;
      rows = head.rows;
      const dialect = resource.dialect as { delimiter?: string } | undefined;
      const delimiter = dialect?.delimiter ?? (format === 'tsv' ? '\t' : ',');
      // The header and PREVIEW_ROWS rows.
      preview = firstRecords(head.text, delimiter, PREVIEW_ROWS + 1);
    }
    resources.push({ name: String(resource.name), format, bytes, rows, preview });
  }
  const text = (key: string): string | undefined =>
    typeof descriptor[key] === 'string' ? descriptor[key] : undefined;
  return { name: text('name'), title: text('title'), description: text('description'), resources };
}
