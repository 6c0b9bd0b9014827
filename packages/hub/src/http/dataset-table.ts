/**
 * The table the dataset page shows, and its rows: which table the address picks (by name, or
 * by index as older links do), the query the address asks (services/viewer/query-params.ts),
 * and where its rows come from. The first view (no sort, filter or search, from row 1) reads
 * the table's small preview file and its stored statistics: no work proportional to the table.
 * A query asks the viewer's engine; on a hub without one, rows come from the CSV copy, from
 * its start, no deeper than FALLBACK_DEEPEST.
 */
import type { Readable } from 'node:stream';
import { derivedOf, isDerived, resourceName, type Package, type Resource } from '@data/core';
import { HttpError } from '../http-error.js';
import { rowsPage } from '../services/copies/table-rows.js';
import { FALLBACK_DEEPEST, isPlain } from '../services/viewer/engine.js';
import { tableQuery } from '../services/viewer/query-params.js';
import type {
  Cell,
  TablePage,
  TableQuery,
  TableStats,
  ViewerColumn,
} from '../services/viewer/types.js';
import type { TableViewerView, ViewerField } from '../views/table-viewer.js';

/** The most values of an `enum` constraint a filter offers as choices. */
const MOST_CHOICES = 50;

/** What the viewer's engine answers the page; why not, in words, when it cannot. */
export interface TableEngine {
  query(query: TableQuery): Promise<TablePage | { unavailable: string; message: string }>;
  /** The table's stored statistics, once computed. */
  stats(table: string): Promise<TableStats | undefined>;
  /**
   * The columns of a table without a schema, as the rows route and the statistics have them
   * (TableViewer.tableColumns: its Parquet copy's, typed); without it, the preview's, as text.
   */
  columns?(table: string): Promise<ViewerColumn[]>;
}

export interface TableSources {
  descriptor: Package;
  /** The first rows of a table from its preview file, as records; undefined when unreadable. */
  preview(resource: Resource): Promise<Record<string, unknown>[] | undefined>;
  /** Opens the bytes of a derived copy. */
  openDerived(resource: Resource): Promise<Readable>;
  engine: TableEngine;
}

type Json = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The tables the page can show: the package's own resources that have a CSV copy. */
function tablesOf(resources: Resource[]): { resource: Resource; index: number; csv: Resource }[] {
  return resources.flatMap((resource, index) => {
    if (isDerived(resource)) return [];
    const csv = derivedOf(resources, 'derived/csv', resourceName(resource));
    return csv ? [{ resource, index, csv }] : [];
  });
}

/** Whether `?table=` names a table: by its name, or by its resource's index (older links). */
function matches(table: { resource: Resource; index: number }, wanted: string): boolean {
  return (
    resourceName(table.resource) === wanted ||
    (/^[0-9]{1,4}$/.test(wanted) && table.index === Number(wanted))
  );
}

/** `?table=`: a table's name, or (older links) the index of its resource; the first by default. */
function picked<T extends { resource: Resource; index: number }>(
  tables: T[],
  wanted: string | null,
): T {
  const first = tables[0];
  if (!first) throw new HttpError(404, 'not found');
  if (wanted === null || wanted === '') return first;
  const found =
    tables.find((table) => resourceName(table.resource) === wanted) ??
    tables.find((table) => matches(table, wanted));
  if (!found) throw new HttpError(400, '"table" names no table of this dataset');
  return found;
}

/** The columns as the schema of the CSV copy (else the table's) declares them. */
function fieldsOf(csv: Resource, source: Resource): ViewerField[] | undefined {
  const schema = (csv.schema ?? source.schema) as { fields?: unknown } | undefined;
  if (!Array.isArray(schema?.fields)) return undefined;
  return (schema.fields as Json[]).map((field) => {
    const choices = (field.constraints as Json | undefined)?.enum;
    const values = Array.isArray(choices)
      ? choices.filter((value): value is string => typeof value === 'string')
      : [];
    return {
      name: String(field.name),
      type: typeof field.type === 'string' ? field.type : 'string',
      description: text(field.description) ?? text(field.title),
      values:
        values.length > 0 && values.length <= MOST_CHOICES && field.type === 'string'
          ? values
          : undefined,
    };
  });
}

/**
 * A text column whose most frequent values are all its values (a handful of categories) is
 * filtered by choosing one, as a column with an `enum` is.
 */
function withChoices(fields: ViewerField[], stats: TableStats): ViewerField[] {
  return fields.map((field) => {
    const column = stats.columns.find((each) => each.name === field.name);
    if (field.values || field.type !== 'string' || !column?.top) return field;
    const counted = column.top.reduce((sum, entry) => sum + entry.count, 0);
    const values = column.top
      .map((entry) => entry.value)
      .filter((value): value is string => typeof value === 'string');
    // Every row's value is among them, none cut short (the statistics cut at 100 characters).
    const all =
      counted + column.missing === stats.rows && values.every((value) => value.length < 100);
    return all && values.length > 1 ? { ...field, values: values.sort() } : field;
  });
}

const asCell = (value: unknown): Cell =>
  value === undefined || value === null || value === ''
    ? null
    : typeof value === 'number' || typeof value === 'boolean'
      ? value
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);

/** Rows of a table by its count, as its copy or validation recorded it. */
function rowCount(csv: Resource): number | undefined {
  const rows = (csv.datahub as { rows?: unknown } | undefined)?.rows;
  return typeof rows === 'number' ? rows : undefined;
}

/** The first view: the preview file's rows, when it holds the page asked for. */
async function firstView(
  sources: TableSources,
  source: Resource,
  csv: Resource,
  columns: ViewerColumn[],
  query: TableQuery,
): Promise<TablePage | undefined> {
  const total = rowCount(csv);
  const preview = derivedOf(sources.descriptor.resources, 'derived/preview', resourceName(source));
  const records = preview ? await sources.preview(preview) : undefined;
  if (!records || total === undefined) return undefined;
  // The preview holds the table's first rows: all of them, or more than the page shows.
  if (records.length < Math.min(total, query.limit)) return undefined;
  return {
    table: query.table,
    columns,
    rows: records
      .slice(0, query.limit)
      .map((record) => columns.map((column) => asCell(record[column.name]))),
    offset: 0,
    matching: total,
    total,
  };
}

/** A page of the CSV copy, read from its start: a hub without the engine. */
async function copyPage(
  sources: TableSources,
  csv: Resource,
  columns: ViewerColumn[],
  query: TableQuery,
): Promise<TablePage | undefined> {
  const offset = Math.min(query.offset, FALLBACK_DEEPEST);
  const limit = Math.max(0, Math.min(query.limit, FALLBACK_DEEPEST - offset));
  try {
    const page = await rowsPage(() => sources.openDerived(csv), offset, limit);
    const at = columns.map((column) => page.labels.indexOf(column.name));
    const total = rowCount(csv) ?? offset + page.rows.length + (page.more ? 1 : 0);
    return {
      table: query.table,
      columns,
      rows: page.rows.map((cells) => at.map((index) => asCell(index === -1 ? null : cells[index]))),
      offset,
      matching: total,
      total,
    };
  } catch {
    return undefined;
  }
}

/** The viewer of the table the address picks; undefined when the package has no table. */
export async function datasetTable(
  sources: TableSources,
  params: URLSearchParams,
  base: string,
): Promise<ShownTable | undefined> {
  const tables = tablesOf(sources.descriptor.resources);
  if (tables.length === 0) return undefined;
  try {
    return await shownTable(sources, tables, params, base);
  } catch (error) {
    // A view the address asks wrongly (400) or the engine cannot take now (503): the page
    // still shows, the table's first view under the reason, with the error's status.
    if (!(error instanceof HttpError) || (error.status !== 400 && error.status !== 503))
      throw error;
    const first = new URLSearchParams();
    const table = params.get('table');
    if (table !== null && tables.some((each) => matches(each, table))) first.set('table', table);
    const shown = await shownTable(sources, tables, first, base);
    return { ...shown, view: { ...shown.view, problem: error.message }, refused: error };
  }
}

export interface ShownTable {
  view: TableViewerView;
  resource: Resource;
  /** Why the view the address asked is not the one shown. */
  refused?: HttpError;
}

async function shownTable(
  sources: TableSources,
  tables: ReturnType<typeof tablesOf>,
  params: URLSearchParams,
  base: string,
): Promise<ShownTable> {
  const { resource, csv } = picked(tables, params.get('table'));
  const name = resourceName(resource);
  let fields = fieldsOf(csv, resource);
  if (!fields && sources.engine.columns) {
    // No schema: the columns and types the rows route and the statistics have (its Parquet
    // copy's), so that a view the page offers is one the route answers.
    fields = await sources.engine.columns(name);
  } else if (!fields) {
    // No schema and no viewer: the preview's columns, as text.
    const preview = derivedOf(sources.descriptor.resources, 'derived/preview', name);
    const records = preview ? await sources.preview(preview) : undefined;
    fields = Object.keys(records?.[0] ?? {}).map((column) => ({ name: column, type: 'string' }));
  }
  const columns = fields.map((field) => ({ name: field.name, type: field.type }));
  // `cols` is the page's own: which columns it shows.
  const query = tableQuery(params, columns, name, ['cols']);
  const plain = isPlain(query) && query.offset === 0;
  const stats = await sources.engine.stats(name).catch(() => undefined);
  // Only a query asks the engine; until one finds it missing, the page offers its controls.
  let notice: string | undefined;
  let page = plain ? await firstView(sources, resource, csv, columns, query) : undefined;
  if (!page) {
    const answer = await sources.engine.query(query);
    if ('unavailable' in answer) notice = answer.message;
    else page = answer;
  }
  const usable = notice === undefined;
  page ??= await copyPage(sources, csv, columns, query);
  return {
    resource,
    view: {
      base,
      tables: tables.map((table) => ({
        name: resourceName(table.resource),
        title: text(table.resource.title),
      })),
      // Without the engine, what it could not do is not said to be done.
      query: usable
        ? query
        : { table: name, filters: [], offset: query.offset, limit: query.limit },
      fields: stats ? withChoices(fields, stats) : fields,
      page,
      stats,
      engine: usable,
      notice,
      deepest: usable ? undefined : FALLBACK_DEEPEST,
      columns: params.get('cols') ?? undefined,
    },
  };
}
