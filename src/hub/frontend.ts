import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { fileHead } from '../files/chunks.js';
import { firstRecords } from '../validator/table/csv-parser.js';
import type { Report } from '../validator/index.js';
import { userOf, type Hub } from './context.js';
import { HttpError, sendText, type Request } from './http.js';
import { revisionDir } from './pipeline.js';
import { storedPath, visibleDataset } from './published.js';
import { searchText } from './metastore.js';
import { datasetPage, homePage, type ResourceRow } from './views/pages.js';
import { STYLESHEET } from './views/layout.js';
import type { Revision } from './metadata/types.js';

const PREVIEW_ROWS = 10;
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

async function preview(path: string, dialect: unknown): Promise<ResourceRow['preview']> {
  const head = await fileHead(path, 64 * 1024).catch(() => undefined);
  if (!head) return undefined;
  const delimiter =
    typeof (dialect as { delimiter?: unknown } | undefined)?.delimiter === 'string'
      ? (dialect as { delimiter: string }).delimiter
      : ',';
  const [labels = [], ...rows] = firstRecords(head.toString('utf8'), delimiter, PREVIEW_ROWS + 1);
  return { labels, rows };
}

async function resourceRows(
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
      const bytes = file ? (await stat(file).catch(() => undefined))?.size : undefined;
      const isTable = ['csv', 'tsv'].includes(format);
      return {
        index,
        name: String(resource.name),
        format,
        bytes,
        fileName: path.split('/').pop() ?? path,
        preview:
          isTable && file && bytes !== undefined
            ? await preview(file, resource.dialect)
            : undefined,
      };
    }),
  );
}

async function readme(
  descriptor: Record<string, unknown>,
  file: string | undefined,
): Promise<string | null> {
  if (typeof descriptor.readme === 'string') return descriptor.readme;
  if (!file) return null;
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text ?? null;
}

/** Where each local path of a revision is stored: its object, or (older hubs) its folder. */
function locator(hub: Hub, revision: Revision, dir: string): (path: string) => string | undefined {
  const files = revision.files ? (JSON.parse(revision.files) as Record<string, string>) : undefined;
  return (path) => storedPath(files, dir, hub.objectsDir, path);
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
  const dir = good ? revisionDir(hub, owner.userid, name, good.revision) : '';
  const locate = good ? locator(hub, good, dir) : () => undefined;
  const failed = latest.state === 'FAILED' ? (JSON.parse(latest.error_log) as string[]) : [];
  const reportSource = latest.state === 'FAILED' ? latest : good;
  const view = {
    owner: owner.username,
    name,
    title: typeof descriptor?.title === 'string' ? descriptor.title : name,
    description: typeof descriptor?.description === 'string' ? descriptor.description : null,
    readme: good && descriptor ? await readme(descriptor, locate('README.md')) : null,
    revision: shown.revision,
    state: latest.state,
    findability: found.dataset.findability,
    resources: good && descriptor ? await resourceRows(descriptor, locate) : [],
    report: reportSource?.report ? (JSON.parse(reportSource.report) as Report) : undefined,
    failure: failed,
    viewer: viewer?.username,
  };
  sendText(response, 200, datasetPage(view), HTML);
}
