/**
 * The table viewer's address parameters, read in one place for the page and the JSON route, so
 * that a linked view and its JSON are the same query under the same limits:
 *
 *   table=<resource name>  sort=<column>  order=asc|desc  q=<search>
 *   eq.<column>=<value>  min.<column>=<value>  max.<column>=<value>  has.<column>=<text>
 *   is.<column>=missing|present  rows=<offset>  size=<rows wanted>
 *
 * An empty value sets nothing (a form sends its empty inputs); any other parameter is refused,
 * naming it, as a misspelt one would otherwise be a view of the whole table unseen. Column
 * names come from publishers: they are looked up among the table's columns, never read as
 * anything else. Values are compared after Unicode NFC normalisation of what the address
 * gives (the table's cells are as published).
 */
import { didYouMean } from '@data/core';
import { HttpError } from '../../http-error.js';
import {
  type ColumnFilter,
  MAX_PAGE_ROWS,
  PAGE_ROWS,
  type TableQuery,
  type ViewerColumn,
} from './types.js';

/** The longest search or filter value, in characters. */
export const MAX_VALUE_CHARS = 200;
/** The deepest offset an address may name. */
export const MAX_OFFSET = 1e12;

const FILTERS = {
  eq: 'equals',
  min: 'range',
  max: 'range',
  has: 'contains',
  is: 'missing',
} as const;
type Prefix = keyof typeof FILTERS;

/** The parameters other than filters. */
const NAMED = ['table', 'sort', 'order', 'q', 'rows', 'size'];
/** What other viewers and APIs call a parameter, and ours. */
const ELSEWHERE: Record<string, string> = {
  limit: 'size',
  offset: 'rows',
  page: 'rows',
  search: 'q',
  query: 'q',
  _sort: 'sort',
  _size: 'size',
  _search: 'q',
};

/** Table Schema's default true and false values, as a boolean filter takes them. */
const TRUE = new Set(['true', 'True', 'TRUE', '1']);
const FALSE = new Set(['false', 'False', 'FALSE', '0']);

/** Types whose values have an order a range can bound. */
const RANGED = new Set(['number', 'integer', 'date', 'datetime', 'year', 'time']);

const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?$/;
const INTEGER = /^[+-]?[0-9]{1,19}$/;
const YEAR = /^[0-9]{4}$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const TIME = /^([01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{1,9})?)?$/;
const DATETIME =
  /^([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[T ]([01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{1,9})?)?(?:Z|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])?)?$/;

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && year >= 1;
}

/** Whether `value` is a value of a column of `type`; the reason it is not, otherwise. */
function valueProblem(type: string, value: string): string | undefined {
  switch (type) {
    case 'number':
      return NUMBER.test(value) && Number.isFinite(Number(value)) ? undefined : 'a number';
    case 'integer':
      return INTEGER.test(value) ? undefined : 'a whole number';
    case 'year':
      return YEAR.test(value) ? undefined : 'a year of four digits';
    case 'date':
      return isCalendarDate(value) ? undefined : 'a date as YYYY-MM-DD';
    case 'time':
      return TIME.test(value) ? undefined : 'a time as HH:MM:SS';
    case 'datetime': {
      const match = DATETIME.exec(value);
      return match?.[1] !== undefined && isCalendarDate(match[1])
        ? undefined
        : 'a date and time as ISO 8601';
    }
    case 'boolean':
      return TRUE.has(value) || FALSE.has(value) ? undefined : 'true or false';
    default:
      return undefined;
  }
}

/** A value the address gives, checked against its column's type. */
function checkedValue(name: string, column: ViewerColumn, value: string): string {
  if (value.length > MAX_VALUE_CHARS)
    throw new HttpError(400, `"${name}" is longer than ${MAX_VALUE_CHARS} characters`);
  const problem = valueProblem(column.type, value);
  if (problem)
    throw new HttpError(
      400,
      `"${name}" must be ${problem} (its column is ${article(column.type)})`,
    );
  if (column.type === 'boolean') return TRUE.has(value) ? 'true' : 'false';
  return value.normalize('NFC');
}

/** A type's name after its article: "an integer", "a date". */
function article(type: string): string {
  return `${/^[aeiou]/i.test(type) ? 'an' : 'a'} ${type}`;
}

/** A parameter's name as an error message shows it: bounded, and its controls left out. */
function shown(name: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return plain.length > 60 ? `${plain.slice(0, 60)}…` : plain;
}

function wholeNumber(name: string, value: string, min: number, max: number): number {
  if (!/^[0-9]{1,13}$/.test(value) || Number(value) > max || Number(value) < min)
    throw new HttpError(400, `"${name}" must be a whole number from ${min} to ${max}`);
  return Number(value);
}

/**
 * A parameter the viewer does not take, refused by name: a misspelt filter or paging
 * parameter (`EQ.flag`, `eq_flag`, `limit`) would otherwise answer the whole table.
 */
function unknownParameter(name: string, columns: ViewerColumn[], others: readonly string[]) {
  const candidates = [
    ...NAMED,
    ...others,
    ...columns.flatMap((column) =>
      Object.keys(FILTERS).map((prefix) => `${prefix}.${column.name}`),
    ),
  ];
  const meant = ELSEWHERE[name] ?? didYouMean(name, candidates);
  return new HttpError(
    400,
    `"${shown(name)}" is not a parameter of a table's view${meant ? ` (did you mean "${shown(meant)}"?)` : ''}: it takes ${[...NAMED, ...others].join(', ')}, and eq., min., max., has. or is. before a column's name`,
  );
}

/**
 * The query an address asks of `table`, whose columns are `columns`; an HttpError 400 saying
 * why when a parameter is not one it can be (an unknown parameter or column, a value of the
 * wrong type, a parameter given twice, a value too long). `others` are the parameters the
 * caller reads itself (the page's `cols`, the route's `v`).
 */
export function tableQuery(
  params: URLSearchParams,
  columns: ViewerColumn[],
  table: string,
  others: readonly string[] = [],
): TableQuery {
  // A column's name is found in its composed form (NFC), whichever way the address or the
  // schema writes it: `eq.café` typed composed names a column written decomposed.
  const byName = new Map(columns.map((column) => [column.name.normalize('NFC'), column]));
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (seen.has(key)) throw new HttpError(400, `"${shown(key)}" is given more than once`);
    seen.add(key);
    const dot = key.indexOf('.');
    const filter = dot > 0 && Object.hasOwn(FILTERS, key.slice(0, dot));
    if (!filter && !NAMED.includes(key) && !others.includes(key))
      throw unknownParameter(key, columns, others);
  }
  const columnOf = (name: string, column: string): ViewerColumn => {
    const found = byName.get(column.normalize('NFC'));
    if (!found) {
      const meant = didYouMean(
        column,
        columns.map((each) => each.name),
      );
      throw new HttpError(
        400,
        `"${shown(name)}" names no column of table "${shown(table)}"${meant ? ` (did you mean "${shown(meant)}"?)` : ''}`,
      );
    }
    return found;
  };

  const query: TableQuery = { table, filters: [], offset: 0, limit: PAGE_ROWS };
  const sort = params.get('sort') ?? '';
  const order = params.get('order') ?? '';
  if (order !== '' && order !== 'asc' && order !== 'desc')
    throw new HttpError(400, '"order" must be asc or desc');
  if (sort !== '') {
    query.sort = { column: columnOf('sort', sort).name, descending: order === 'desc' };
  } else if (order !== '') {
    throw new HttpError(400, '"order" is given without "sort": give the column to sort by');
  }
  const search = params.get('q') ?? '';
  if (search.length > MAX_VALUE_CHARS)
    throw new HttpError(400, `"q" is longer than ${MAX_VALUE_CHARS} characters`);
  if (search.trim() !== '') query.search = search.normalize('NFC');
  const offset = params.get('rows') ?? '';
  if (offset !== '') query.offset = wholeNumber('rows', offset, 0, MAX_OFFSET);
  const size = params.get('size') ?? '';
  if (size !== '') query.limit = wholeNumber('size', size, 1, MAX_PAGE_ROWS);

  const ranges = new Map<string, { column: string; kind: 'range'; min?: string; max?: string }>();
  for (const [name, value] of params) {
    const dot = name.indexOf('.');
    const prefix = dot > 0 ? name.slice(0, dot) : '';
    if (!Object.hasOwn(FILTERS, prefix)) continue;
    const column = columnOf(name, name.slice(dot + 1));
    if (value === '') continue;
    const kind = FILTERS[prefix as Prefix];
    if (kind === 'missing') {
      if (value !== 'missing' && value !== 'present')
        throw new HttpError(400, `"${shown(name)}" must be missing or present`);
      query.filters.push({ column: column.name, kind, present: value === 'present' });
    } else if (kind === 'contains') {
      if (value.length > MAX_VALUE_CHARS)
        throw new HttpError(400, `"${shown(name)}" is longer than ${MAX_VALUE_CHARS} characters`);
      query.filters.push({ column: column.name, kind, value: value.normalize('NFC') });
    } else if (kind === 'equals') {
      query.filters.push({
        column: column.name,
        kind,
        value: checkedValue(shown(name), column, value),
      });
    } else {
      if (!RANGED.has(column.type))
        throw new HttpError(400, `"${shown(name)}": ${article(column.type)} column has no range`);
      const checked = checkedValue(shown(name), column, value);
      let range = ranges.get(column.name);
      if (!range) {
        range = { column: column.name, kind: 'range' };
        ranges.set(column.name, range);
        query.filters.push(range);
      }
      if (prefix === 'min') range.min = checked;
      else range.max = checked;
    }
  }
  return query;
}

/** The address parameters of a query: tableQuery's inverse, for the page's links. */
export function queryParams(query: TableQuery): URLSearchParams {
  const params = new URLSearchParams();
  params.set('table', query.table);
  if (query.sort) {
    params.set('sort', query.sort.column);
    params.set('order', query.sort.descending ? 'desc' : 'asc');
  }
  if (query.search !== undefined && query.search !== '') params.set('q', query.search);
  for (const filter of query.filters) paramsOf(filter, params);
  if (query.offset !== 0) params.set('rows', String(query.offset));
  if (query.limit !== PAGE_ROWS) params.set('size', String(query.limit));
  return params;
}

function paramsOf(filter: ColumnFilter, params: URLSearchParams): void {
  if (filter.kind === 'missing')
    params.set(`is.${filter.column}`, filter.present ? 'present' : 'missing');
  else if (filter.kind === 'equals') params.set(`eq.${filter.column}`, filter.value);
  else if (filter.kind === 'contains') params.set(`has.${filter.column}`, filter.value);
  else {
    if (filter.min !== undefined) params.set(`min.${filter.column}`, filter.min);
    if (filter.max !== undefined) params.set(`max.${filter.column}`, filter.max);
  }
}
