/**
 * The table viewer's contract: what a page or the JSON route asks of one table of a published
 * revision, and what it answers. Both read the same address parameters (query-params.ts), so
 * that a linked view and its JSON are the same query under the same limits.
 */

/** The most rows one answer holds; the page shows PAGE_ROWS. */
export const MAX_PAGE_ROWS = 100;
export const PAGE_ROWS = 50;

/** A filter on one column, as the address names it. */
export type ColumnFilter =
  | { column: string; kind: 'equals'; value: string }
  /** Inclusive bounds of a number, integer, date, datetime or year column; either may be absent. */
  | { column: string; kind: 'range'; min?: string; max?: string }
  /** Case-insensitive substring of a text column. */
  | { column: string; kind: 'contains'; value: string }
  /** Rows whose cell is missing (`present` false) or is not (`present` true). */
  | { column: string; kind: 'missing'; present: boolean };

export interface TableQuery {
  /** The table's resource name. */
  table: string;
  sort?: { column: string; descending: boolean };
  filters: ColumnFilter[];
  /** Case-insensitive substring of any text cell of a row. */
  search?: string;
  /** Rows skipped, and rows wanted (at most MAX_PAGE_ROWS). */
  offset: number;
  limit: number;
}

/** A cell as JSON holds it: numbers as numbers, dates as ISO text, missing as null. */
export type Cell = string | number | boolean | null;

export interface ViewerColumn {
  name: string;
  /** The Table Schema type of the field ('string' when the table has no schema). */
  type: string;
}

export interface TablePage {
  table: string;
  columns: ViewerColumn[];
  rows: Cell[][];
  /** Rows skipped before `rows`. */
  offset: number;
  /** Rows of the table that the filters and search let through. */
  matching: number;
  /**
   * Set when `matching` is a lower bound: more rows match, and the hub is counting them all
   * (a later ask has the whole count). Counting a frequent search through a large table takes
   * longer than its first pages.
   */
  atLeast?: boolean;
  /** Rows of the whole table. */
  total: number;
}

export interface ColumnStats {
  name: string;
  type: string;
  missing: number;
  /** Distinct values other than missing: exact unless `approximate`. */
  distinct: number;
  /**
   * Set when `distinct` is DuckDB's HyperLogLog estimate (a table past EXACT_ROWS, a column
   * with many values): a few per cent off, at most the values there are.
   */
  approximate?: true;
  /** As cells are written (ISO dates, numbers as JSON numbers); absent for text and empty columns. */
  min?: Cell;
  max?: Cell;
  /** Numbers, integers, dates, datetimes and years: equal-width bins over [min, max]. */
  histogram?: { from: Cell; to: Cell; count: number }[];
  /** Text, booleans and the rest: the most frequent values, most frequent first (at most 10). */
  top?: { value: Cell; count: number }[];
}

/** One table's statistics, computed once per revision after publication. */
export interface TableStats {
  table: string;
  rows: number;
  columns: ColumnStats[];
}
