/**
 * The dataset page's table viewer: one table at a time (a tab of a `tablist` per table), as a
 * real table whose column headers name each column, its type and description, with the
 * column's statistics below them; sort links in the headers, a search and filters in a GET
 * form, and paging links to the last row. Pure: from the query, the page of rows and the
 * statistics to HTML, every publisher value escaped.
 */
import { grouped } from '@data/core';
import {
  PAGE_ROWS,
  type Cell,
  type ColumnStats,
  type TablePage,
  type TableQuery,
  type TableStats,
} from '../services/viewer/types.js';
import { escape } from './escape.js';

/** A column as the viewer shows it: its name, Table Schema type and description. */
export interface ViewerField {
  name: string;
  type: string;
  /** The field's description, else its title. */
  description?: string | undefined;
  /** Values a column of categories takes (its `enum` constraint), offered by its filter. */
  values?: string[] | undefined;
}

export interface TableViewerView {
  /** The page's own address, without its query: the form's action and the links' start. */
  base: string;
  /** The package's tables, in order: the picker's tabs. */
  tables: { name: string; title: string | undefined }[];
  /** What is shown: the table (query.table), its sort, filters, search and page. */
  query: TableQuery;
  fields: ViewerField[];
  /** The rows; undefined when none could be read. */
  page: TablePage | undefined;
  stats: TableStats | undefined;
  /**
   * Whether the hub's engine sorts, filters and searches. Without it rows come from the CSV
   * copy, from its start, as deep as `deepest` rows.
   */
  engine: boolean;
  /** Why the engine could not answer, when it could not. */
  notice?: string | undefined;
  /** Why the view the address asked is not shown (a wrong parameter, a busy hub). */
  problem?: string | undefined;
  deepest?: number | undefined;
}

const UNAVAILABLE = 'sorting, filtering and searching are unavailable on this hub';

/** A message as a sentence: its first letter a capital, a full stop at its end. */
const sentence = (message: string): string =>
  `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;

/** The id of the viewer's panel, which every link of the viewer brings into view. */
const PANEL = 'table-viewer';
/** Characters of a cell shown; a longer value is cut, and says so. */
const CELL_CHARACTERS = 300;
/** The most frequent values a header lists. */
const TOP_SHOWN = 5;

const NUMERIC = new Set(['number', 'integer', 'year']);
const TEMPORAL = new Set(['date', 'datetime', 'time', 'yearmonth']);
const RANGED = new Set(['number', 'integer', 'year', 'date', 'datetime', 'time']);

/** The page's address for a query, bringing the viewer into view. */
export function viewerHref(base: string, params: URLSearchParams): string {
  const search = params.toString();
  return `${base}${search ? `?${search}` : ''}#${PANEL}`;
}

/** A cell's value as text: numbers as JSON writes them, missing as undefined. */
function cellText(value: Cell | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : String(value);
}

/** A moment as read: no milliseconds when they are none (the engine writes .000, a copy not). */
const moment = (text: string): string =>
  text.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.000(?=Z$|[+-]\d\d:?\d\d$|$)/, '$1');

const MISSING =
  '<span class="missing"><span aria-hidden="true">—</span><span class="hidden">missing</span></span>';

function cut(text: string): string {
  return text.length > CELL_CHARACTERS
    ? `${escape(text.slice(0, CELL_CHARACTERS))}… <span class="cut">(${grouped(text.length)} characters)</span>`
    : escape(text);
}

/** One cell of a row, as its column's type shows it. */
export function cellHtml(value: Cell | undefined, type: string): string {
  const text = cellText(value);
  if (text === undefined || text === '')
    return `<td${NUMERIC.has(type) ? ' class="number"' : ''}>${MISSING}</td>`;
  if (NUMERIC.has(type)) return `<td class="number">${cut(text)}</td>`;
  if (TEMPORAL.has(type))
    return `<td class="temporal"><time datetime="${escape(text)}">${cut(moment(text))}</time></td>`;
  if (type === 'boolean' && (text === 'true' || text === 'false'))
    return `<td><span class="bool ${text}">${text === 'true' ? 'true' : 'false'}</span></td>`;
  return `<td dir="auto">${cut(text)}</td>`;
}

/** A statistic's value, as short as it can be said. */
function statText(value: Cell | undefined): string {
  const written = cellText(value);
  if (written === undefined) return 'missing';
  const text = moment(written);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const statValue = (value: Cell | undefined): string => escape(statText(value));

/** A small histogram, drawn as bars, with the same figures said in words. */
function histogram(column: ColumnStats): string {
  const bins = column.histogram ?? [];
  if (bins.length === 0) return '';
  const most = Math.max(...bins.map((bin) => bin.count), 1);
  const width = 100 / bins.length;
  const bars = bins
    .map((bin, index) => {
      const height = bin.count === 0 ? 0 : Math.max(1, Math.round((bin.count / most) * 28));
      return `<rect x="${(index * width).toFixed(2)}" y="${String(28 - height)}" width="${Math.max(width - 0.6, 0.4).toFixed(2)}" height="${String(height)}"/>`;
    })
    .join('');
  const [first] = bins;
  const peak = bins.reduce<(typeof bins)[number] | undefined>(
    (best, bin) => (best && best.count >= bin.count ? best : bin),
    undefined,
  );
  const said = `Histogram of ${column.name}: ${String(bins.length)} bins from ${statText(first?.from)} to ${statText(bins.at(-1)?.to)}; the most rows, ${grouped(peak?.count ?? 0)}, from ${statText(peak?.from)} to ${statText(peak?.to)}.`;
  return `<svg viewBox="0 0 100 28" preserveAspectRatio="none" role="img" aria-label="${escape(said)}">${bars}</svg>`;
}

/** What a column's header says of its values: missing, distinct, range, histogram or top values. */
export function statsHtml(column: ColumnStats | undefined): string {
  if (!column) return '<td class="stats"></td>';
  const lines = [
    // An estimate is marked as one.
    `${grouped(column.missing)} missing · ${column.approximate ? '≈' : ''}${grouped(column.distinct)} distinct`,
    column.min !== undefined && column.max !== undefined
      ? `${statValue(column.min)} – ${statValue(column.max)}`
      : '',
  ].filter(Boolean);
  const top = (column.top ?? []).slice(0, TOP_SHOWN);
  const list =
    top.length > 0
      ? `<ol aria-label="Most frequent values of ${escape(column.name)}">${top
          .map((entry) => `<li><bdi>${statValue(entry.value)}</bdi> (${grouped(entry.count)})</li>`)
          .join('')}</ol>`
      : '';
  return `<td class="stats">${lines.map((line) => `<div>${line}</div>`).join('')}${histogram(column)}${list}</td>`;
}

/** The same query with some of it changed; a new view starts at its first row. */
function changed(query: TableQuery, change: Partial<TableQuery>): TableQuery {
  return { ...query, offset: 0, ...change };
}

type Href = (query: TableQuery) => string;

function header(field: ViewerField, view: TableViewerView, href: Href): string {
  const sort = view.query.sort;
  const sorted = sort?.column === field.name;
  const about = field.description ? `<span class="about">${escape(field.description)}</span>` : '';
  const type = `<span class="type">${escape(field.type)}</span>`;
  const name = `<bdi>${escape(field.name)}</bdi>`;
  if (!view.engine) return `<th scope="col">${name}${type}${about}</th>`;
  const state = sorted ? (sort.descending ? 'descending' : 'ascending') : 'none';
  const descending = sorted && !sort.descending;
  const next = changed(view.query, { sort: { column: field.name, descending } });
  const arrow = sorted ? (sort.descending ? ' ▼' : ' ▲') : '';
  return `<th scope="col" aria-sort="${state}"><a href="${escape(href(next))}">${name}<span aria-hidden="true">${arrow}</span><span class="hidden">, sort ${descending ? 'descending' : 'ascending'}</span></a>${type}${about}</th>`;
}

function tabs(view: TableViewerView, href: Href): string {
  if (view.tables.length < 2) return '';
  const items = view.tables.map((table, index) => {
    const selected = table.name === view.query.table;
    const query: TableQuery = {
      table: table.name,
      filters: [],
      offset: 0,
      limit: view.query.limit,
    };
    return `<a role="tab" id="table-tab-${String(index)}" href="${escape(href(query))}" aria-selected="${String(selected)}" aria-controls="${PANEL}"><bdi>${escape(table.title ?? table.name)}</bdi></a>`;
  });
  return `<div role="tablist" aria-label="Tables">${items.join('')}</div>`;
}

/** The label and input of one column's filter, by its type. */
function filterInput(field: ViewerField, query: TableQuery, index: number): string {
  const id = `filter-${String(index)}`;
  const name = escape(field.name);
  const filter = query.filters.find((each) => each.column === field.name);
  if (field.type === 'boolean' || (field.values && field.values.length > 0)) {
    const chosen = filter?.kind === 'equals' ? filter.value : '';
    const values = field.type === 'boolean' ? ['true', 'false'] : (field.values ?? []);
    const options = ['', ...values]
      .map(
        (value) =>
          `<option value="${escape(value)}"${value === chosen ? ' selected' : ''}>${value === '' ? 'any' : escape(value)}</option>`,
      )
      .join('');
    return `<div><label for="${id}"><bdi>${name}</bdi> equals</label><select id="${id}" name="eq.${name}">${options}</select></div>`;
  }
  if (RANGED.has(field.type)) {
    const range = filter?.kind === 'range' ? filter : undefined;
    // A date or time picker where the browser has one; numbers as text, which keeps what is typed.
    const kind = field.type === 'date' || field.type === 'time' ? field.type : 'text';
    const mode = NUMERIC.has(field.type) ? ' inputmode="decimal"' : '';
    const bound = (which: 'min' | 'max') =>
      `<div><label for="${id}-${which}"><bdi>${name}</bdi> ${which === 'min' ? 'from' : 'to'}</label><input type="${kind}"${mode} id="${id}-${which}" name="${which}.${name}" value="${escape(range?.[which] ?? '')}"></div>`;
    return `${bound('min')}${bound('max')}`;
  }
  const value = filter?.kind === 'contains' ? filter.value : '';
  return `<div><label for="${id}"><bdi>${name}</bdi> contains</label><input type="text" id="${id}" name="has.${name}" value="${escape(value)}"></div>`;
}

function queryForm(view: TableViewerView, href: Href): string {
  const { query } = view;
  const hidden = [
    ['table', query.table],
    ...(query.sort
      ? [
          ['sort', query.sort.column],
          ['order', query.sort.descending ? 'desc' : 'asc'],
        ]
      : []),
    ...(query.limit !== PAGE_ROWS ? [['size', String(query.limit)]] : []),
  ]
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escape(value)}">`)
    .join('');
  const filters = view.fields.map((field, index) => filterInput(field, query, index)).join('');
  const active = query.filters.length;
  const clear =
    active > 0 || query.search !== undefined || query.sort
      ? `<a href="${escape(href({ table: query.table, filters: [], offset: 0, limit: query.limit }))}">Clear</a>`
      : '';
  return `<form class="query" method="get" action="${escape(view.base)}#${PANEL}" role="search" aria-label="Search and filter ${escape(query.table)}">${hidden}
<div class="search"><label for="table-search">Search this table</label><input type="search" id="table-search" name="q" value="${escape(query.search ?? '')}"></div>
<details class="filters"${active > 0 ? ' open' : ''}><summary>Filters${active > 0 ? ` (${String(active)})` : ''}</summary><div class="filter-grid">${filters}</div></details>
<div class="actions"><button type="submit">Apply</button>${clear}</div></form>`;
}

/** "Rows a–b of M matching (N in all)", and the links to the first, previous, next and last pages. */
function pager(view: TableViewerView, page: TablePage, href: Href): string {
  const { query } = view;
  const { offset, matching, total } = page;
  const filtered = query.filters.length > 0 || query.search !== undefined;
  const shownRows = page.rows.length;
  // A frequent match in a large table is counted after its first pages: a lower bound till then.
  const counting = page.atLeast === true;
  const of = filtered
    ? `of ${counting ? 'at least ' : ''}${grouped(matching)} matching (${grouped(total)} in all${counting ? '; still counting' : ''})`
    : `of ${grouped(total)}`;
  const said =
    shownRows > 0
      ? `Rows ${grouped(offset + 1)}–${grouped(offset + shownRows)} ${of}`
      : matching === 0
        ? filtered
          ? `No rows match (${grouped(total)} in all)`
          : 'The table has no rows'
        : `No rows there: ${filtered ? `${grouped(matching)} match` : `the table has ${grouped(total)}`}`;
  const limit = query.limit;
  const deepest = view.engine ? Infinity : (view.deepest ?? Infinity);
  const lastOffset = Math.max(0, Math.floor((matching - 1) / limit) * limit);
  const link = (label: string, to: number | undefined, rel?: string) =>
    to === undefined
      ? `<span class="off" aria-disabled="true">${label}</span>`
      : `<a href="${escape(href({ ...query, offset: to }))}"${rel ? ` rel="${rel}"` : ''}>${label}</a>`;
  const next = offset + limit;
  const links = [
    link('First', offset > 0 ? 0 : undefined),
    link(
      'Previous',
      offset > 0 ? Math.max(0, Math.min(offset - limit, lastOffset)) : undefined,
      'prev',
    ),
    `<span>${said}.</span>`,
    link('Next', next < matching && next < deepest ? next : undefined, 'next'),
    lastOffset + limit <= deepest
      ? link('Last', offset !== lastOffset && matching > 0 && !counting ? lastOffset : undefined)
      : '<span class="muted">The download holds the rest.</span>',
  ];
  return `<nav class="pager" aria-label="Pages of ${escape(query.table)}">${links.join('')}</nav>`;
}

function rowsTable(view: TableViewerView, page: TablePage, href: Href): string {
  const types = new Map(view.fields.map((field) => [field.name, field.type]));
  const fields =
    view.fields.length > 0
      ? view.fields
      : page.columns.map((column) => ({ name: column.name, type: column.type }));
  const stats = new Map((view.stats?.columns ?? []).map((column) => [column.name, column]));
  const heads = fields.map((field) => header(field, view, href)).join('');
  const statsRow = view.stats
    ? `<tr class="stats">${fields.map((field) => statsHtml(stats.get(field.name))).join('')}</tr>`
    : '';
  // Cells are placed by the answer's columns, shown in the fields' order.
  const at = new Map(page.columns.map((column, index) => [column.name, index]));
  const body = page.rows
    .map(
      (row) =>
        `<tr>${fields
          .map((field) => {
            const index = at.get(field.name);
            return cellHtml(
              index === undefined ? null : row[index],
              types.get(field.name) ?? field.type,
            );
          })
          .join('')}</tr>`,
    )
    .join('\n');
  return `<div class="scroll" role="region" aria-label="Rows of ${escape(view.query.table)}" tabindex="0"><table class="rows">
<caption class="hidden">Rows of ${escape(view.query.table)}</caption>
<thead><tr>${heads}</tr>${statsRow}</thead><tbody>${body}</tbody></table></div>`;
}

/** The viewer: the picker, the search and filters, the table and its pages. */
export function tableViewer(
  view: TableViewerView,
  params: (query: TableQuery) => URLSearchParams,
): string {
  const href: Href = (query) => viewerHref(view.base, params(query));
  const selected = view.tables.findIndex((table) => table.name === view.query.table);
  const labelled =
    view.tables.length > 1 && selected !== -1
      ? ` role="tabpanel" aria-labelledby="table-tab-${String(selected)}"`
      : '';
  const problem = view.problem
    ? `<p class="notice" role="alert">This view cannot be shown: ${escape(view.problem.replace(/\.$/, ''))}.</p>`
    : '';
  const notice = view.engine
    ? ''
    : `<p class="notice" role="note">${escape(sentence(view.notice ?? UNAVAILABLE))}</p>`;
  // The same query as JSON, at the route that answers it (docs/protocol.md, Table rows).
  const json = view.engine
    ? `<p class="muted"><a href="${escape(`${view.base}/rows?${params(view.query).toString()}`)}">This view as JSON</a></p>`
    : '';
  const rows = view.page
    ? `${rowsTable(view, view.page, href)}${pager(view, view.page, href)}${json}`
    : '<p class="muted">The rows of this table cannot be shown; its download holds them.</p>';
  return `<section class="viewer">${tabs(view, href)}<div id="${PANEL}"${labelled}>
${problem}${notice}${view.engine && view.page ? queryForm(view, href) : ''}${rows}</div></section>`;
}
