import type { ServerResponse } from 'node:http';
import { firstRecords } from '../validator/table/csv-parser.js';
import type { Report } from '../validator/index.js';
import { userOf, type Hub } from './context.js';
import { HttpError, sendText, type Request } from './http.js';
import { storedKey, visibleDataset } from './published.js';
import { readAll } from './send-file.js';
import { packagePath, type Storage } from './storage/types.js';
import { searchText } from './metastore.js';
import { datasetPage, homePage, type ResourceRow } from './views/pages.js';
import { STYLESHEET } from './views/layout.js';
import type { Revision } from './metadata/types.js';

const PREVIEW_ROWS = 10;
const PREVIEW_BYTES = 64 * 1024;
const README_BYTES = 1024 * 1024;
const HTML = 'text/html; charset=utf-8';

export function stylesheet(_hub: Hub, _request: Request, response: ServerResponse): void {
  response.setHeader('Cache-Control', 'public, max-age=3600');
  sendText(response, 200, STYLESHEET, 'text/css; charset=utf-8');
}

export async function home(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const query = searchText(request.url.searchParams.get('q'));
  const viewer = await userOf(hub, request);
  const { rows, total } = await hub.store.search(query, viewer?.userid, 50, 0);
  const cards = rows.map((row) => ({
    owner: row.username,
    name: row.name,
    title: row.title,
    description: row.description,
  }));
  sendText(response, 200, homePage(cards, query, total, viewer?.username), HTML);
}

/** The first bytes of a stored file, or undefined when it cannot be read. */
async function head(storage: Storage, key: string, bytes: number): Promise<Buffer | undefined> {
  try {
    // Asked for by range: a bucket then sends these bytes only, not the whole file.
    const size = (await storage.stat(key))?.size;
    if (size === undefined) return undefined;
    if (size === 0) return Buffer.alloc(0);
    return await readAll(await storage.read(key, { start: 0, end: Math.min(size, bytes) - 1 }));
  } catch {
    return undefined;
  }
}

async function preview(
  storage: Storage,
  key: string,
  dialect: unknown,
): Promise<ResourceRow['preview']> {
  const bytes = await head(storage, key, PREVIEW_BYTES);
  if (!bytes) return undefined;
  const delimiter =
    typeof (dialect as { delimiter?: unknown } | undefined)?.delimiter === 'string'
      ? (dialect as { delimiter: string }).delimiter
      : ',';
  const [labels = [], ...rows] = firstRecords(
    bytes.subarray(0, PREVIEW_BYTES).toString('utf8'),
    delimiter,
    PREVIEW_ROWS + 1,
  );
  return { labels, rows };
}

async function resourceRows(
  storage: Storage,
  descriptor: Record<string, unknown>,
  locate: (path: string) => string | undefined,
): Promise<ResourceRow[]> {
  const resources = Array.isArray(descriptor.resources)
    ? (descriptor.resources as Record<string, unknown>[])
    : [];
  return Promise.all(
    resources.map(async (resource, index) => {
      const path = typeof resource.path === 'string' ? resource.path : '';
      const format =
        typeof resource.format === 'string'
          ? resource.format
          : (/\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '');
      const file = path ? locate(path) : undefined;
      const bytes = file ? (await storage.stat(file).catch(() => undefined))?.size : undefined;
      const isTable = ['csv', 'tsv'].includes(format);
      return {
        index,
        name: String(resource.name),
        format,
        bytes,
        fileName: path.split('/').pop() ?? path,
        preview:
          isTable && file && bytes !== undefined
            ? await preview(storage, file, resource.dialect)
            : undefined,
      };
    }),
  );
}

async function readme(
  storage: Storage,
  descriptor: Record<string, unknown>,
  key: string | undefined,
): Promise<string | null> {
  if (typeof descriptor.readme === 'string') return descriptor.readme;
  if (!key) return null;
  const bytes = await head(storage, key, README_BYTES);
  return bytes ? bytes.subarray(0, README_BYTES).toString('utf8') : null;
}

/** Where each local path of a revision is stored: its object, or (older hubs) its folder. */
function locator(revision: Revision, prefix: string): (path: string) => string | undefined {
  const files = revision.files ? (JSON.parse(revision.files) as Record<string, string>) : undefined;
  return (path) => storedKey(files, prefix, path);
}

export async function dataset(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  ownerName: string,
  name: string,
  version?: number,
): Promise<void> {
  const found = await visibleDataset(hub, request, ownerName, name);
  if (!found) throw new HttpError(404, 'not found');
  const { owner } = found;
  const latest = await hub.store.revision(
    owner.userid,
    name,
    version === undefined ? 'latest' : String(version),
  );
  const viewer = await userOf(hub, request);
  const isOwner = viewer?.userid === owner.userid;
  if (!latest || (latest.findability === 'private' && !isOwner))
    throw new HttpError(404, 'not found');
  const good =
    version === undefined
      ? await hub.store.revision(owner.userid, name, 'successful')
      : latest.state === 'SUCCEEDED'
        ? latest
        : undefined;
  const shown = good ?? latest;
  const descriptor = (
    good?.descriptor
      ? JSON.parse(good.descriptor)
      : (
          JSON.parse(shown.spec) as {
            inputs?: { parameters?: { descriptor?: unknown } }[];
          }
        ).inputs?.[0]?.parameters?.descriptor
  ) as Record<string, unknown> | undefined;
  const locate = good
    ? locator(good, packagePath(owner.userid, name, good.revision))
    : () => undefined;
  const failed = latest.state === 'FAILED' ? (JSON.parse(latest.error_log) as string[]) : [];
  const reportSource = latest.state === 'FAILED' ? latest : good;
  const view = {
    owner: owner.username,
    name,
    title: typeof descriptor?.title === 'string' ? descriptor.title : name,
    description: typeof descriptor?.description === 'string' ? descriptor.description : null,
    readme: good && descriptor ? await readme(hub.storage, descriptor, locate('README.md')) : null,
    revision: shown.revision,
    state: latest.state,
    findability: found.dataset.findability,
    resources: good && descriptor ? await resourceRows(hub.storage, descriptor, locate) : [],
    report: reportSource?.report ? (JSON.parse(reportSource.report) as Report) : undefined,
    failure: failed,
    viewer: viewer?.username,
  };
  sendText(response, 200, datasetPage(view), HTML);
}
