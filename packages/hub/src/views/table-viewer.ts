/**
 * The dataset page's table viewer: one table at a time (a tab of a `tablist` per table), as a
 * real table whose column headers name each column, its type and description, with the
 * column's statistics below them; sort links in the headers, a search and filters in a GET
 * form, and paging links to the last row. Pure: from the query, the page of rows and the
 * statistics to HTML, every publisher value escaped.
 */
import { counted, grouped } from '@data/core';
import {
  PAGE_ROWS,
  type Cell,
  type ColumnFilter,
  type ColumnStats,
  type TablePage,
  type TableQuery,
  type TableStats,
} from '../services/viewer/types.js';
import { STATS_COLUMNS } from '../services/viewer/stats.js';
import { escape } from './escape.js';
import { figure } from './format.js';

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
  /**
   * The address's `cols`: which columns are shown, `all` or the number of the first (from 1);
   * when absent, the first COLUMNS_SHOWN. The sorted and filtered columns are always shown.
   */
  columns?: string | undefined;
}

const UNAVAILABLE = 'sorting, filtering and searching are unavailable on this hub';

/** A message as a sentence: its first letter a capital, a full stop at its end. */
const sentence = (message: string): string =>
  `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;

/** The id of the viewer's panel, which every link of the viewer brings into view. */
const PANEL = 'table-viewer';
/** Characters of a cell shown; a longer value is cut, and says so. */
const CELL_CHARACTERS = 300;
/** The most frequent values a header lists (and those as frequent as the last listed). */
const TOP_SHOWN = 5;
/**
 * The columns a view shows unless the address asks for all: the page's weight is bounded
 * whatever the table's width (a 300-column table's page was 650 KB, its cells most of it).
 */
export const COLUMNS_SHOWN = 20;

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
    return `<td><time datetime="${escape(text)}">${cut(moment(text))}</time></td>`;
  if (type === 'boolean' && (text === 'true' || text === 'false'))
    return `<td><span class="bool ${text}">${text === 'true' ? 'true' : 'false'}</span></td>`;
  return `<td dir="auto">${cut(text)}</td>`;
}

/**
 * A statistic's value, as short as it can be said; a number column's figures with their
 * thousands separated, as every count of the page (a year as written).
 */
function statText(value: Cell | undefined, type = 'string'): string {
  const written = cellText(value);
  if (written === undefined) return 'missing';
  if (NUMERIC.has(type) && type !== 'year') return figure(written);
  const text = moment(written);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const statValue = (value: Cell | undefined, type?: string): string => escape(statText(value, type));

/** A coordinate of the histogram, short: 4.75, 5, 0.4. */
const at = (value: number): string => String(Number(value.toFixed(2)));

/** A small histogram, drawn as bars, with the same figures said in words. */
function histogram(column: ColumnStats): string {
  const bins = column.histogram ?? [];
  if (bins.length === 0) return '';
  const most = Math.max(...bins.map((bin) => bin.count), 1);
  const width = 100 / bins.length;
  const bar = at(Math.max(width - 0.6, 0.4));
  // One path for the bars: a few hundred bytes and one node a column, whatever the bins.
  const bars = bins
    .map((bin, index) => {
      const height = bin.count === 0 ? 0 : Math.max(1, Math.round((bin.count / most) * 28));
      return height === 0
        ? ''
        : `M${at(index * width)} 28v-${String(height)}h${bar}v${String(height)}z`;
    })
    .join('');
  const [first] = bins;
  const peak = bins.reduce<(typeof bins)[number] | undefined>(
    (best, bin) => (best && best.count >= bin.count ? best : bin),
    undefined,
  );
  const type = column.type;
  const said = `Histogram of ${column.name}: ${String(bins.length)} bins from ${statText(first?.from, type)} to ${statText(bins.at(-1)?.to, type)}; the most rows, ${grouped(peak?.count ?? 0)}, from ${statText(peak?.from, type)} to ${statText(peak?.to, type)}.`;
  return `<svg viewBox="0 0 100 28" preserveAspectRatio="none" role="img" aria-label="${escape(said)}"><path d="${bars}"/></svg>`;
}

/** An estimate as a reader takes it in: two significant figures (≈1.8 million, ≈180,000). */
export function estimated(count: number): string {
  if (count >= 1_000_000)
    return new Intl.NumberFormat('en', {
      notation: 'compact',
      compactDisplay: 'long',
      maximumSignificantDigits: 2,
    }).format(count);
  return new Intl.NumberFormat('en', { maximumSignificantDigits: 2 }).format(count);
}

/** The table a column's statistics are of: its rows, and whether they stop short of it. */
export interface StatsOf {
  rows: number;
  /** The column is past the STATS_COLUMNS that have statistics. */
  past?: boolean;
}

/** What a column's header says of its values: missing, distinct, range, histogram or top values. */
export function statsHtml(
  column: ColumnStats | undefined,
  missingHref?: string,
  table?: StatsOf,
): string {
  if (!column) {
    if (!table?.past) return '<td class="stats"></td>';
    // Its missing values are still a filter away, uncounted.
    const link = missingHref
      ? `<div><a href="${escape(missingHref)}">rows missing a value</a></div>`
      : '';
    return `<td class="stats"><div>no statistics past the first ${String(STATS_COLUMNS)} columns</div>${link}</td>`;
  }
  // The missing values counted are a link to the rows that miss one (is.<column>=missing).
  const missing =
    missingHref && column.missing > 0
      ? `<a href="${escape(missingHref)}">${grouped(column.missing)} missing</a>`
      : `${grouped(column.missing)} missing`;
  // An estimate is marked as one, and rounded: its last figures say nothing.
  const present = table ? table.rows - column.missing : undefined;
  const unique = !column.approximate && present !== undefined && present > 0;
  const distinct =
    unique && column.distinct === present
      ? 'all values unique'
      : `${column.approximate ? `≈${estimated(column.distinct)}` : grouped(column.distinct)} distinct`;
  const lines = [
    `${missing} · ${distinct}`,
    column.min !== undefined && column.max !== undefined
      ? `${statValue(column.min, column.type)} – ${statValue(column.max, column.type)}`
      : '',
  ].filter(Boolean);
  // Values that occur once each are no list of the most frequent.
  const top = (column.top ?? []).some((entry) => entry.count > 1) ? topShown(column.top ?? []) : [];
  const list =
    top.length > 0
      ? `<ol aria-label="Most frequent values of ${escape(column.name)}">${top
          .map((entry) => `<li><bdi>${statValue(entry.value)}</bdi> (${grouped(entry.count)})</li>`)
          .join('')}</ol>`
      : '';
  // The values not listed, counted (the distinct count holds every value but the missing).
  const more = top.length > 0 ? column.distinct - top.length : 0;
  const rest =
    more <= 0
      ? ''
      : column.approximate
        ? `<div>and about ${estimated(more)} more ${more === 1 ? 'value' : 'values'}</div>`
        : `<div>and ${counted(more, 'more value', 'more values')}</div>`;
  return `<td class="stats">${lines.map((line) => `<div>${line}</div>`).join('')}${histogram(column)}${list}${rest}</td>`;
}

type Top = NonNullable<ColumnStats['top']>;

/**
 * The most frequent values a header lists: most frequent first, equal counts in the order of
 * their text (the same on every page), TOP_SHOWN of them and any as frequent as the last, so
 * that no value is left out beside one as frequent.
 */
export function topShown(top: Top): Top {
  const ordered = [...top].sort(
    (a, b) => b.count - a.count || compareText(cellText(a.value), cellText(b.value)),
  );
  const last = ordered[TOP_SHOWN - 1];
  return ordered.filter((entry, index) => index < TOP_SHOWN || entry.count === last?.count);
}

const compareText = (a: string | undefined, b: string | undefined): number =>
  a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : a < b ? -1 : 1;

/** The same query with some of it changed; a new view starts at its first row. */
function changed(query: TableQuery, change: Partial<TableQuery>): TableQuery {
  return { ...query, offset: 0, ...change };
}

type Href = (query: TableQuery) => string;

function header(field: ViewerField, index: number, view: TableViewerView, href: Href): string {
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
  return `<th scope="col" aria-sort="${state}"><a id="sort-${String(index)}" href="${escape(href(next))}">${name}<span aria-hidden="true">${arrow}</span><span class="hidden">, sort ${descending ? 'descending' : 'ascending'}</span></a>${type}${about}</th>`;
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
  const filter = query.filters.find(
    (each) => each.column === field.name && each.kind !== 'missing',
  );
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

function queryForm(view: TableViewerView, shown: Shown[], href: Href): string {
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
    // A filter on missing values (chosen by a column's "N missing" link) is kept by the form.
    ...query.filters.flatMap((filter) =>
      filter.kind === 'missing'
        ? [[`is.${filter.column}`, filter.present ? 'present' : 'missing']]
        : [],
    ),
    ...(view.columns ? [['cols', view.columns]] : []),
  ]
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('');
  const filters = shown.map(({ field, index }) => filterInput(field, query, index)).join('');
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
      : `<a id="page-${label.toLowerCase()}" href="${escape(href({ ...query, offset: to }))}"${rel ? ` rel="${rel}"` : ''}>${label}</a>`;
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

/**
 * The rows of the view missing a value in `column`, as a link relative to the page (its
 * address but the query, which keeps a page's weight per column small).
 */
function missingHref(view: TableViewerView, column: string, href: Href): string | undefined {
  if (!view.engine) return undefined;
  const query: TableQuery = {
    ...view.query,
    filters: [
      ...view.query.filters.filter((each) => each.column !== column || each.kind !== 'missing'),
      { column, kind: 'missing', present: false },
    ],
    offset: 0,
  };
  const address = href(query);
  return address.startsWith(`${view.base}?`) ? address.slice(view.base.length) : address;
}

function rowsTable(view: TableViewerView, page: TablePage, shown: Shown[], href: Href): string {
  const types = new Map(view.fields.map((field) => [field.name, field.type]));
  const fields = shown.map(({ field }) => field);
  const stats = new Map((view.stats?.columns ?? []).map((column) => [column.name, column]));
  const heads = shown.map(({ field, index }) => header(field, index, view, href)).join('');
  const tableStats = view.stats;
  const cut = (tableStats?.columns.length ?? 0) >= STATS_COLUMNS;
  const statsRow = tableStats
    ? `<tr class="stats">${fields.map((field) => statsHtml(stats.get(field.name), missingHref(view, field.name, href), { rows: tableStats.rows, past: cut && !stats.has(field.name) })).join('')}</tr>`
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
  // Every link keeps the column choice but the tabs, whose table has columns of its own.
  const href: Href = (query) => viewerHref(view.base, withColumns(params(query), view.columns));
  const shown = shownColumns(view);
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
    ? `${view.engine ? stateLine(view, href) : ''}${columnsLine(view, shown, params)}${rowsTable(view, view.page, shown, href)}${pager(view, view.page, href)}${json}`
    : '<p class="muted">The rows of this table cannot be shown; its download holds them.</p>';
  // The panel takes the focus after a view chosen from a control the new page has not.
  return `<section class="viewer">${tabs(view, (query) => viewerHref(view.base, params(query)))}<div id="${PANEL}"${labelled} tabindex="-1">
${problem}${notice}${view.engine && view.page ? queryForm(view, shown, href) : ''}${rows}</div></section>`;
}

/** A column shown, with its place among the table's columns (its controls' ids). */
interface Shown {
  field: ViewerField;
  index: number;
}

/** The address's parameters with the column choice, when one is made. */
function withColumns(params: URLSearchParams, columns: string | undefined): URLSearchParams {
  if (columns) params.set('cols', columns);
  return params;
}

/** The table's columns: its fields, else the answer's columns. */
function allFields(view: TableViewerView): ViewerField[] {
  return view.fields.length > 0
    ? view.fields
    : (view.page?.columns ?? []).map((column) => ({ name: column.name, type: column.type }));
}

/** The first column of the window `cols` asks (from 0), or all. */
function columnWindow(view: TableViewerView, total: number): { first: number; all: boolean } {
  const asked = view.columns ?? '';
  if (asked === 'all') return { first: 0, all: true };
  const number = /^[0-9]{1,6}$/.test(asked) ? Number(asked) : 1;
  return { first: Math.max(0, Math.min(number, total) - 1), all: false };
}

/**
 * The columns shown: COLUMNS_SHOWN of them from the one `cols` names (all with `cols=all`),
 * and the sorted and filtered columns wherever they are, in the table's order.
 */
export function shownColumns(view: TableViewerView): Shown[] {
  const fields = allFields(view);
  const { first, all } = columnWindow(view, fields.length);
  const kept = new Set([
    ...(view.query.sort ? [view.query.sort.column] : []),
    ...view.query.filters.map((filter) => filter.column),
  ]);
  return fields
    .map((field, index) => ({ field, index }))
    .filter(
      ({ field, index }) =>
        all || (index >= first && index < first + COLUMNS_SHOWN) || kept.has(field.name),
    );
}

/** Which columns are shown, when not all, and the links to the others. */
function columnsLine(
  view: TableViewerView,
  shown: Shown[],
  params: (query: TableQuery) => URLSearchParams,
): string {
  const total = allFields(view).length;
  if (total <= COLUMNS_SHOWN) return '';
  const { first, all } = columnWindow(view, total);
  const to = (columns: string | undefined) =>
    escape(viewerHref(view.base, withColumns(params(view.query), columns)));
  if (all)
    return `<p class="columns">All ${grouped(total)} columns shown · <a href="${to(undefined)}">Show ${String(COLUMNS_SHOWN)} at a time</a></p>`;
  const last = Math.min(first + COLUMNS_SHOWN, total);
  const others = shown.length - (last - first);
  const links = [
    first > 0
      ? `<a href="${to(String(Math.max(1, first - COLUMNS_SHOWN + 1)))}">Previous columns</a>`
      : '',
    last < total ? `<a href="${to(String(last + 1))}">Next columns</a>` : '',
    `<a href="${to('all')}">Show all ${grouped(total)} columns</a>`,
  ].filter(Boolean);
  const said = `Columns ${grouped(first + 1)}–${grouped(last)} of ${grouped(total)}${others > 0 ? `, and the sorted or filtered ${others === 1 ? 'one' : 'ones'}` : ''}`;
  return `<p class="columns">${said} · ${links.join(' · ')}</p>`;
}

/** A filter as the line above the table says it. */
function filterWords(filter: ColumnFilter, type: string): string {
  const name = `<bdi>${escape(filter.column)}</bdi>`;
  const value = (text: string) =>
    `<bdi>${escape(NUMERIC.has(type) && type !== 'year' ? figure(text) : text)}</bdi>`;
  if (filter.kind === 'missing') return `${name} is ${filter.present ? 'not missing' : 'missing'}`;
  if (filter.kind === 'equals') return `${name} is ${value(filter.value)}`;
  if (filter.kind === 'contains') return `${name} contains “${value(filter.value)}”`;
  if (filter.kind === 'range') {
    const { min, max } = filter;
    if (min !== undefined && max !== undefined)
      return `${name} from ${value(min)} to ${value(max)}`;
    if (min !== undefined) return `${name} from ${value(min)}`;
    if (max !== undefined) return `${name} up to ${value(max)}`;
  }
  return `${name} filtered`;
}

/**
 * What the view does to the table, above it, where a phone shows it when the sorted column is
 * out of sight: "Sorted by amount, descending · category is gamma · search “x”", each with a
 * link that undoes it, named by what it undoes.
 */
function stateLine(view: TableViewerView, href: Href): string {
  const { query } = view;
  const types = new Map(allFields(view).map((field) => [field.name, field.type]));
  const undo = (label: string, to: TableQuery) =>
    ` <a class="undo" href="${escape(href(to))}"><span aria-hidden="true">×</span><span class="hidden">${escape(label)}</span></a>`;
  const without = (change: (query: TableQuery) => TableQuery) => change({ ...query, offset: 0 });
  const parts: string[] = [];
  if (query.sort) {
    const { column, descending } = query.sort;
    parts.push(
      `Sorted by <bdi>${escape(column)}</bdi>, ${descending ? 'descending' : 'ascending'}${undo(
        `Remove the sort by ${column}`,
        without(({ sort: _sort, ...rest }) => rest),
      )}`,
    );
  }
  for (const filter of query.filters)
    parts.push(
      `${filterWords(filter, types.get(filter.column) ?? 'string')}${undo(
        `Remove the filter on ${filter.column}`,
        without((each) => ({ ...each, filters: each.filters.filter((one) => one !== filter) })),
      )}`,
    );
  if (query.search !== undefined)
    parts.push(
      `search “<bdi>${escape(query.search)}</bdi>”${undo(
        'Remove the search',
        without(({ search: _search, ...rest }) => rest),
      )}`,
    );
  if (parts.length === 0) return '';
  return `<p class="state">${parts.map((part) => `<span>${part}</span>`).join(' · ')}</p>`;
}
