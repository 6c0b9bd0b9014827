import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import {
  casterFor,
  derivedOf,
  detectVersion,
  formatOf,
  isDerived,
  resourceName,
  resourcesOf,
  summaryText,
} from '@data/core';
import type { FieldDescriptor, Package, Report, Resource } from '@data/core';
import type { Hub } from '../context.js';
import { callerOf, userOf } from './callers.js';
import { may, roleOn } from '../services/access.js';
import { organisationIntro } from '../views/organisation.js';
import { HttpError } from '../http-error.js';
import { HTML, sendText, type Request } from './request.js';
import { hiddenFrom, visibleDataset } from './published.js';
import { fileAddress, storedKey, type Published } from '../services/published.js';
import { readAll } from './send-file.js';
import { packagePath, type Storage } from '../engines/storage/types.js';
import { searchText } from './metastore.js';
import { shownChanges, visibleToOthers } from './pipeline-store.js';
import { eachRecord } from '../services/copies/table-rows.js';
import { datasetTable, type TableEngine } from './dataset-table.js';
import { viewerClient } from './table-rows.js';
import { ENGINE_MISSING } from '../services/viewer/engine.js';
import { tableStats } from '../services/viewer/stats.js';
import { DATASET_SORTS, type DatasetSort, type Revision } from '../engines/metadata/types.js';
import { datasetPage, type DatasetView, type ResourceRow } from '../views/dataset.js';
import { listingPage, type DatasetCard } from '../views/listing.js';
import { FAVICON, SCRIPT, STYLESHEET, escape } from '../views/layout.js';
import { humanBytes, count, day } from '../views/format.js';
import { ordered, type ChartData, type SimpleView } from '../views/chart.js';
import { schemaRows } from '../views/schema.js';

const PAGE_SIZE = 20;
const README_BYTES = 1024 * 1024;
/** A preview larger than this (very wide rows) is passed over for the CSV copy. */
const PREVIEW_FILE_BYTES = 4 * 1024 * 1024;
const CHART_POINTS = 1000;

/** A revision not published has no table to query. */
const NO_ENGINE: TableEngine = {
  query: () => Promise.resolve({ unavailable: 'copy', message: ENGINE_MISSING }),
  stats: () => Promise.resolve(undefined),
};

/** The hub's viewer, for one revision: a query stops when its page's client goes. */
function viewerEngine(
  hub: Hub,
  pkg: Published,
  request: Request,
  response: ServerResponse,
): TableEngine {
  const gone = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) gone.abort();
  });
  return {
    query: async (query) =>
      hub.viewer.queryTable(pkg, query, gone.signal, await viewerClient(hub, request)),
    stats: (table) => tableStats(hub, pkg, table),
    columns: (table) => hub.viewer.tableColumns(pkg, table, gone.signal),
  };
}

export function stylesheet(_hub: Hub, _request: Request, response: ServerResponse): void {
  response.setHeader('Cache-Control', 'public, max-age=3600');
  sendText(response, 200, STYLESHEET, 'text/css; charset=utf-8');
}

export function favicon(_hub: Hub, _request: Request, response: ServerResponse): void {
  response.setHeader('Cache-Control', 'public, max-age=86400');
  sendText(response, 200, FAVICON, 'image/svg+xml');
}

export function script(_hub: Hub, _request: Request, response: ServerResponse): void {
  response.setHeader('Cache-Control', 'public, max-age=3600');
  sendText(response, 200, SCRIPT, 'text/javascript; charset=utf-8');
}

/** `?sort=` and `?page=` of a listing; anything else there is a 400, not a guess. */
function listingParams(request: Request): { sort: DatasetSort; page: number } {
  const params = request.url.searchParams;
  const sort = params.get('sort') ?? 'updated';
  if (!(DATASET_SORTS as readonly string[]).includes(sort))
    throw new HttpError(400, `"sort" is one of ${DATASET_SORTS.join(', ')}`);
  const page = params.get('page') ?? '1';
  if (!/^[1-9][0-9]{0,5}$/.test(page)) throw new HttpError(400, '"page" must be a page number');
  return { sort: sort as DatasetSort, page: Number(page) };
}

function cardOf(row: Awaited<ReturnType<Hub['store']['search']>>['rows'][number]): DatasetCard {
  return {
    owner: row.username,
    name: row.name,
    title: row.title,
    description: row.description,
    bytes: row.bytes,
    rows: row.row_count,
    license: row.license,
    updated: row.modified,
    findability: row.findability,
  };
}

export async function home(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const query = searchText(request.url.searchParams.get('q'));
  const { sort, page } = listingParams(request);
  const viewer = await userOf(hub, request);
  const { rows, total } = await hub.store.search(
    query,
    viewer?.userid,
    PAGE_SIZE,
    (page - 1) * PAGE_SIZE,
    '',
    // A search is ranked by relevance unless an order is asked for.
    query && !request.url.searchParams.has('sort') ? undefined : sort,
  );
  const html = listingPage({
    path: '/',
    heading: query ? `Datasets matching “${query}”` : 'Datasets',
    intro: query ? '' : '<p class="muted">Open data packages, validated on publication.</p>',
    query,
    sort,
    page,
    pageSize: PAGE_SIZE,
    total,
    cards: rows.map(cardOf),
    empty: query
      ? 'Nothing matches this search.'
      : 'No dataset is published yet. Publish one with <code>data publish</code>.',
    viewer: viewer?.username,
  });
  sendText(response, 200, html, HTML);
}

/**
 * `/<owner>`: the datasets of one owner, a user or an organisation; private and unlisted
 * ones to that owner (and the organisation's members) only, and an organisation's members
 * to its members.
 */
export async function owner(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  ownerName: string,
): Promise<void> {
  const user = await hub.store.userByName(ownerName);
  if (!user) throw new HttpError(404, 'not found');
  const { sort, page } = listingParams(request);
  const viewer = await userOf(hub, request);
  // One caller decides both what is listed and what is said of the owner. The owner itself
  // is `admin` of its own; an organisation's members have their role; a credential that may
  // not read the owner's private datasets (a trusted publisher's token, which reads only the
  // one it publishes) is told nothing of them, nor of the members.
  const caller = await callerOf(hub, request);
  const reads = await may(hub.store.organisations, caller, 'read', user.userid);
  const role = reads ? await roleOn(hub.store.organisations, caller, user.userid) : undefined;
  const { rows, total } = await hub.store.search(
    '',
    caller?.via === 'trusted' ? undefined : caller?.userid,
    PAGE_SIZE,
    (page - 1) * PAGE_SIZE,
    user.userid,
    sort,
  );
  const html = listingPage({
    path: `/${encodeURIComponent(user.username)}`,
    heading: `Datasets of ${user.username}`,
    intro:
      role && user.kind === 'organisation'
        ? organisationIntro(user.username, await hub.store.organisations.members(user.userid), role)
        : role
          ? '<p class="muted">Your datasets, the private and unlisted ones too: only you see those.</p>'
          : '',
    query: '',
    sort,
    page,
    pageSize: PAGE_SIZE,
    total,
    cards: rows.map(cardOf),
    empty: `${escape(user.username)} has no dataset to show.`,
    viewer: viewer?.username,
  });
  sendText(response, 200, html, HTML);
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

/** A JSON object of a descriptor that is no resource: a view, a licence, a source. */
type Json = Record<string, unknown>;
type Locate = (path: string) => string | undefined;
/** Opens the bytes of a derived resource, making the copy if it must. */
type OpenDerived = (resource: Resource) => Promise<Readable>;

interface DerivedInfo {
  type?: unknown;
  derivedFrom?: unknown;
  rows?: unknown;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The records of a table's preview file; undefined when it cannot be read whole. */
async function previewRecords(
  storage: Storage,
  key: string | undefined,
): Promise<Record<string, unknown>[] | undefined> {
  const bytes = key ? await head(storage, key, PREVIEW_FILE_BYTES) : undefined;
  if (!bytes || bytes.length >= PREVIEW_FILE_BYTES) return undefined;
  try {
    const records: unknown = JSON.parse(bytes.toString('utf8'));
    return Array.isArray(records) ? (records as Record<string, unknown>[]) : undefined;
  } catch {
    return undefined;
  }
}

async function resourceRows(
  storage: Storage,
  descriptor: Package,
  locate: Locate,
  report: Report | undefined,
): Promise<ResourceRow[]> {
  const resources = descriptor.resources;
  const originals = resources
    .map((resource, index) => ({ resource, index }))
    .filter(({ resource }) => !isDerived(resource));
  return Promise.all(
    originals.map(async ({ resource, index }): Promise<ResourceRow> => {
      const path = text(resource.path) ?? '';
      const name = resourceName(resource);
      const format = formatOf(resource) ?? '';
      const task = report?.tasks.find((each) => each.name === name);
      const csv = derivedOf(resources, 'derived/csv', name);
      const copies = ['csv', 'json', 'parquet'].filter(
        (extension) =>
          extension !== format && derivedOf(resources, `derived/${extension}`, name) !== undefined,
      );
      const file = path && !/^https?:/i.test(path) ? locate(path) : undefined;
      const bytes =
        typeof resource.bytes === 'number'
          ? resource.bytes
          : (task?.stats.bytes ??
            (file ? (await storage.stat(file).catch(() => undefined))?.size : undefined));
      const rows = (csv?.datahub as DerivedInfo | undefined)?.rows;
      return {
        index,
        name,
        title: text(resource.title),
        format,
        bytes,
        rows: typeof rows === 'number' ? rows : task?.stats.rows,
        fileName: fileAddress(resources, index),
        copies,
        schema: schemaRows(resource.schema),
      };
    }),
  );
}

/** A number as a table cell holds it, under the field's decimal and group characters. */
function numberIn(
  cell: string,
  field: { decimalChar?: unknown; groupChar?: unknown },
): number | null {
  let written = cell.trim();
  if (written === '') return null;
  if (typeof field.groupChar === 'string' && field.groupChar !== '')
    written = written.split(field.groupChar).join('');
  if (typeof field.decimalChar === 'string' && field.decimalChar !== '.')
    written = written.replace(field.decimalChar, '.');
  const value = Number(written);
  return Number.isFinite(value) ? value : null;
}

/** Types whose values have an order of their own, which a chart's x axis follows. */
const ORDERED_TYPES = new Set([
  'number',
  'integer',
  'year',
  'yearmonth',
  'date',
  'time',
  'datetime',
]);

/**
 * Each label as a number that orders it (a date as its milliseconds, read in the field's
 * format), or none for a field of no order: its points stay in the table's order.
 */
function orderOf(
  field: Record<string, unknown>,
  labels: readonly string[],
  version: ReturnType<typeof detectVersion>,
): (number | undefined)[] {
  if (!ORDERED_TYPES.has(String(field.type))) return [];
  let cast: (raw: unknown) => unknown;
  try {
    cast = casterFor(field as unknown as FieldDescriptor, version);
  } catch {
    // A field no reader takes (a format that is no text) was refused when published; a
    // revision an older hub published may hold one all the same: its rows keep their order.
    return [];
  }
  return labels.map((label) => {
    const value = cast(label);
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  });
}

/** The Data Package `views` the page can draw: simple line and bar charts of one table. */
async function charts(
  descriptor: Package,
  openDerived: OpenDerived,
): Promise<{ view: SimpleView; data: ChartData }[]> {
  const views = Array.isArray(descriptor.views) ? (descriptor.views as Json[]) : [];
  const resources = descriptor.resources;
  const drawn: { view: SimpleView; data: ChartData }[] = [];
  for (const view of views.slice(0, 10)) {
    const spec = view.spec as { type?: unknown; group?: unknown; series?: unknown } | undefined;
    const type = spec?.type;
    const group = text(spec?.group);
    const series = Array.isArray(spec?.series)
      ? spec.series.filter((name): name is string => typeof name === 'string')
      : [];
    if ((type !== 'line' && type !== 'bar') || !group || series.length === 0) continue;
    const wanted: unknown = Array.isArray(view.resources) ? view.resources[0] : 0;
    const source =
      typeof wanted === 'number'
        ? resources[wanted]
        : resources.find((resource) => resource.name === wanted);
    const csv = source ? derivedOf(resources, 'derived/csv', resourceName(source)) : undefined;
    if (!source || !csv) continue;
    // The CSV copy's own schema reads its cells (a hub before typed copies named the table's).
    const fields =
      ((csv.schema ?? source.schema) as { fields?: Record<string, unknown>[] } | undefined)
        ?.fields ?? [];
    const data: ChartData = { labels: [], values: series.map(() => []) };
    let columns: number[] = [];
    try {
      await eachRecord(
        () => openDerived(csv),
        (cells) => {
          if (columns.length === 0) {
            columns = [group, ...series].map((name) => cells.indexOf(name));
            return !columns.includes(-1);
          }
          data.labels.push(cells[columns[0] ?? 0] ?? '');
          series.forEach((name, which) => {
            const field = fields.find((each) => each.name === name) ?? {};
            data.values[which]?.push(numberIn(cells[columns[which + 1] ?? 0] ?? '', field));
          });
          return data.labels.length < CHART_POINTS;
        },
      );
    } catch {
      continue;
    }
    if (columns.includes(-1) || data.labels.length === 0) continue;
    const x = fields.find((each) => each.name === group);
    // A line needs an x with an order (a number, a date, a time): without one, no chart.
    const placed = ordered(
      type,
      data,
      x ? String(x.type) : undefined,
      x ? orderOf(x, data.labels, detectVersion(descriptor)) : [],
    );
    if (!placed) continue;
    drawn.push({
      view: { title: text(view.title) ?? text(view.name) ?? 'Chart', type, group, series },
      data: placed,
    });
  }
  return drawn;
}

async function readme(
  storage: Storage,
  descriptor: Package,
  key: string | undefined,
): Promise<string | null> {
  if (typeof descriptor.readme === 'string') return descriptor.readme;
  if (!key) return null;
  const bytes = await head(storage, key, README_BYTES);
  return bytes ? bytes.subarray(0, README_BYTES).toString('utf8') : null;
}

/** Where each local path of a revision is stored: its object, or (older hubs) its folder. */
function locator(revision: Revision, prefix: string): Locate {
  const files = revision.files ? (JSON.parse(revision.files) as Record<string, string>) : undefined;
  return (path) => storedKey(files, prefix, path);
}

/** A link, only to the web: a descriptor's `path` to a licence may be anything. */
function link(label: string, address: unknown): string {
  const url = text(address);
  return url && /^https?:\/\//i.test(url)
    ? `<a href="${escape(url)}" rel="nofollow noopener noreferrer">${escape(label)}</a>`
    : escape(label);
}

function namedList(list: unknown, label: (item: Json) => string | undefined): string[] {
  return (Array.isArray(list) ? (list as Json[]) : [])
    .map((item) => {
      const name = typeof item === 'object' && item !== null ? label(item) : undefined;
      return name ? link(name, item.path ?? item.url ?? item.email) : undefined;
    })
    .filter((item): item is string => item !== undefined);
}

function facts(
  descriptor: Package,
  dates: { created: string | undefined; updated: string | undefined },
  totals: { bytes: number | undefined; rows: number | undefined },
): DatasetView['facts'] {
  const list: DatasetView['facts'] = [];
  const add = (label: string, html: string | undefined) => {
    if (html) list.push({ label, html });
  };
  add(
    'Licence',
    namedList(descriptor.licenses, (item) => text(item.title) ?? text(item.name)).join(', ') ||
      undefined,
  );
  add(
    'Sources',
    namedList(descriptor.sources, (item) => text(item.title) ?? text(item.path)).join(', ') ||
      undefined,
  );
  add(
    'Contributors',
    namedList(descriptor.contributors, (item) => {
      const name = text(item.title) ?? text(item.givenName) ?? text(item.organization);
      const role = text(item.role) ?? (Array.isArray(item.roles) ? text(item.roles[0]) : undefined);
      return name && role ? `${name} (${role})` : name;
    }).join(', ') || undefined,
  );
  add(
    'Keywords',
    Array.isArray(descriptor.keywords)
      ? descriptor.keywords
          .filter((word): word is string => typeof word === 'string')
          .map(escape)
          .join(', ') || undefined
      : undefined,
  );
  add('Version', text(descriptor.version) ? escape(text(descriptor.version)) : undefined);
  add(
    'Homepage',
    text(descriptor.homepage) ? link(String(descriptor.homepage), descriptor.homepage) : undefined,
  );
  add('Size', totals.bytes !== undefined ? humanBytes(totals.bytes) : undefined);
  add('Rows', totals.rows !== undefined ? count(totals.rows) : undefined);
  add('Created', dates.created ? day(dates.created) : undefined);
  add('Updated', dates.updated ? day(dates.updated) : undefined);
  return list;
}

/**
 * The descriptor a dataset page shows: the one published with a revision that succeeded
 * (validated then), else the one the shown revision's flow spec sent, whose resources are
 * read as the model reads a descriptor not validated (resourcesOf).
 */
function shownDescriptor(good: Revision | undefined, shown: Revision): Package | undefined {
  if (good?.descriptor) return JSON.parse(good.descriptor) as Package;
  const spec = JSON.parse(shown.spec) as { inputs?: { parameters?: { descriptor?: unknown } }[] };
  const sent = spec.inputs?.[0]?.parameters?.descriptor;
  return typeof sent === 'object' && sent !== null && !Array.isArray(sent)
    ? { ...sent, resources: resourcesOf(sent) }
    : undefined;
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
  const { owner: user } = found;
  // One rule with the revision's files and rows (published.ts hiddenFrom).
  const readable = async (revision: Revision) =>
    !(await hiddenFrom(hub, request, { owner: user, dataset: found.dataset, revision }));
  let latest = await hub.store.revision(
    user.userid,
    name,
    version === undefined ? 'latest' : String(version),
  );
  // The newest revision hidden from the asker (a private one that failed, say): the page is
  // the published revision's, whose files and rows the asker reads.
  if (latest && version === undefined && !(await readable(latest)))
    latest = await hub.store.revision(user.userid, name, 'successful');
  const viewer = await userOf(hub, request);
  // The owner and an organisation's members see every revision; others the public ones.
  const isOwner = await may(
    hub.store.organisations,
    await callerOf(hub, request),
    'read',
    user.userid,
    found.dataset.name,
  );
  if (!latest || !(await readable(latest))) throw new HttpError(404, 'not found');
  const successful =
    version === undefined
      ? await hub.store.revision(user.userid, name, 'successful')
      : latest.state === 'SUCCEEDED'
        ? latest
        : undefined;
  const good = successful && (await readable(successful)) ? successful : undefined;
  const shown = good ?? latest;
  const descriptor = shownDescriptor(good, shown);
  const locate = good
    ? locator(good, packagePath(user.userid, name, good.revision))
    : () => undefined;
  const pkg: Published | undefined =
    good && descriptor
      ? {
          owner: user,
          dataset: found.dataset,
          revision: good,
          descriptor,
          prefix: packagePath(user.userid, name, good.revision),
          files: good.files ? (JSON.parse(good.files) as Record<string, string>) : undefined,
        }
      : undefined;
  const openDerived: OpenDerived = async (resource) => {
    if (!pkg) throw new HttpError(404, 'not found');
    return hub.copies.read(pkg, resource);
  };
  const failed = latest.state === 'FAILED' ? (JSON.parse(latest.error_log) as string[]) : [];
  const reportSource = latest.state === 'FAILED' ? latest : good;
  const report = reportSource?.report ? (JSON.parse(reportSource.report) as Report) : undefined;
  const visibleRevisions = (await hub.store.revisions(user.userid, name)).filter(
    (revision) => isOwner || visibleToOthers(found.dataset, revision),
  );
  const visible = new Set(visibleRevisions.map((revision) => revision.revision));
  const changesOf = (revision: Revision) => {
    const summary = shownChanges(revision, visible);
    return summary ? { since: summary.since, text: summaryText(summary) } : undefined;
  };
  const history = visibleRevisions.slice(0, 50).map((revision) => ({
    revision: revision.revision,
    state: revision.state,
    created: revision.created,
    published: revision.revision === found.dataset.published_revision,
    changes: changesOf(revision),
  }));
  const resources =
    good && descriptor
      ? await resourceRows(
          hub.storage,
          descriptor,
          locate,
          good.report ? (JSON.parse(good.report) as Report) : undefined,
        )
      : [];
  const table =
    good && descriptor
      ? await datasetTable(
          {
            descriptor,
            preview: (resource) =>
              previewRecords(hub.storage, text(resource.path) && locate(String(resource.path))),
            openDerived,
            engine: pkg ? viewerEngine(hub, pkg, request, response) : NO_ENGINE,
          },
          request.url.searchParams,
          `/${encodeURIComponent(user.username)}/${encodeURIComponent(name)}${version === undefined ? '' : `/v/${String(version)}`}`,
        )
      : undefined;
  const sum = (values: (number | undefined)[]) =>
    values.some((value) => value !== undefined)
      ? values.reduce<number>((total, value) => total + (value ?? 0), 0)
      : undefined;
  const zip = derivedOf(descriptor?.resources ?? [], 'derived/zip');
  const view: DatasetView = {
    owner: user.username,
    name,
    title: text(descriptor?.title) ?? name,
    description: text(descriptor?.description) ?? null,
    readme: good && descriptor ? await readme(hub.storage, descriptor, locate('README.md')) : null,
    revision: shown.revision,
    version,
    state: latest.state,
    findability: found.dataset.findability,
    facts: descriptor
      ? facts(
          descriptor,
          { created: history.at(-1)?.created, updated: good?.modified },
          {
            bytes: sum(resources.map((row) => row.bytes)),
            rows: sum(resources.map((row) => row.rows)),
          },
        )
      : [],
    resources,
    zip: typeof zip?.path === 'string' ? zip.path.split('/').pop() : undefined,
    charts: good && descriptor ? await charts(descriptor, openDerived) : [],
    history,
    changes: changesOf(shown),
    report,
    failure: failed,
    viewer: viewer?.username,
    table: table?.view,
  };
  // A view the address asked wrongly is the table's first view, under the reason, with its status.
  const refused = table?.refused;
  if (refused && 'retryAfter' in refused)
    response.setHeader('Retry-After', String(refused.retryAfter));
  sendText(response, refused?.status ?? 200, datasetPage(view), HTML);
}
