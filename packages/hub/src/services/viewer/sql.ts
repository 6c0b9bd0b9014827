/**
 * The SQL of the table viewer's questions. Column names come from publishers: each is quoted
 * by `identifier`, and never written any other way; every value a request gives is a bound
 * parameter, never part of the text.
 */
import type { Cell, ColumnFilter, TableQuery } from './types.js';

/** What DuckDB holds a column as, in the few kinds the viewer tells apart. */
export type Kind =
  'int' | 'float' | 'date' | 'timestamptz' | 'timestamp' | 'time' | 'bool' | 'text' | 'other';

export interface FileColumn {
  name: string;
  kind: Kind;
}

/** A Parquet file's columns as DuckDB reads them, from the type names it gives. */
export function kindOf(type: string): Kind {
  if (/^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/.test(type)) return 'int';
  if (/^(DOUBLE|FLOAT|REAL|DECIMAL\(\d+,\d+\))$/.test(type)) return 'float';
  if (type === 'DATE') return 'date';
  if (type === 'TIMESTAMP WITH TIME ZONE') return 'timestamptz';
  if (/^TIMESTAMP(_S|_MS|_NS)?$/.test(type)) return 'timestamp';
  if (type === 'TIME') return 'time';
  if (type === 'BOOLEAN') return 'bool';
  if (type === 'VARCHAR') return 'text';
  return 'other';
}

/** A file's column as a Table Schema type, for a table whose descriptor has no schema. */
export function typeName(column: FileColumn): string {
  const names: Partial<Record<Kind, string>> = {
    int: 'integer',
    float: 'number',
    date: 'date',
    timestamptz: 'datetime',
    timestamp: 'datetime',
    time: 'time',
    bool: 'boolean',
  };
  return names[column.kind] ?? 'string';
}

/** A name as an SQL identifier: in double quotes, each of its own doubled. */
export function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A text expression in its composed form (NFC), as the viewer compares text: the request's
 * values are composed, and a cell may be written either way.
 */
export function nfc(expression: string): string {
  return `nfc_normalize(${expression})`;
}

/** A value for ILIKE that matches itself only: its %, _ and \ escaped (ESCAPE '\'). */
export function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** What a column is compared and cast as: fixed names, never a type name read from a file. */
const CAST: Partial<Record<Kind, string>> = {
  int: 'HUGEINT',
  float: 'DOUBLE',
  date: 'DATE',
  timestamptz: 'TIMESTAMPTZ',
  timestamp: 'TIMESTAMP',
  time: 'TIME',
  bool: 'BOOLEAN',
  text: 'VARCHAR',
};

/**
 * A datetime expression as ISO 8601 text, as the hub's CSV and JSON copies write it: UTC with
 * `Z` (for a column with a time zone), milliseconds only when there are some.
 */
export function isoText(expression: string, zoned: boolean): string {
  const zone = zoned ? 'Z' : '';
  return `CASE WHEN epoch_ms(${expression}) % 1000 = 0 THEN strftime(${expression}, '%Y-%m-%dT%H:%M:%S${zone}') ELSE strftime(${expression}, '%Y-%m-%dT%H:%M:%S.%g${zone}') END`;
}

/** The expression a column is selected as, so that its cells come out as JSON holds them. */
export function cellExpression(column: FileColumn): string {
  const name = identifier(column.name);
  switch (column.kind) {
    case 'float':
      return `CAST(${name} AS DOUBLE)`;
    case 'timestamptz':
      return isoText(name, true);
    case 'timestamp':
      return isoText(name, false);
    case 'int':
    case 'bool':
    case 'text':
      return name;
    case 'date':
    case 'time':
    case 'other':
      return `CAST(${name} AS VARCHAR)`;
  }
}

/** A cell as DuckDB gives it, as JSON holds it. */
export function jsonCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint')
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value) ?? null;
}

/** A WHERE clause and its parameters, numbered after those given. */
export class Conditions {
  readonly parts: string[] = [];
  constructor(readonly params: unknown[]) {}

  private param(value: unknown): string {
    this.params.push(value);
    return `$${String(this.params.length)}`;
  }

  private typed(column: FileColumn, value: string): { left: string; right: string } {
    const cast = CAST[column.kind];
    const name = identifier(column.name);
    // Text is compared in its composed (NFC) form, as the request's value is: a cell written
    // decomposed (as macOS writes `e` and U+0300) equals the same word composed.
    if (column.kind === 'text') return { left: nfc(name), right: this.param(value) };
    return cast
      ? { left: name, right: `CAST(${this.param(value)} AS ${cast})` }
      : { left: nfc(`CAST(${name} AS VARCHAR)`), right: this.param(value) };
  }

  filter(column: FileColumn, filter: ColumnFilter): void {
    if (filter.kind === 'missing') {
      this.parts.push(`${identifier(column.name)} IS ${filter.present ? 'NOT ' : ''}NULL`);
    } else if (filter.kind === 'contains') {
      const like = this.param(`%${likeEscaped(filter.value)}%`);
      this.parts.push(
        `${nfc(`CAST(${identifier(column.name)} AS VARCHAR)`)} ILIKE ${like} ESCAPE '\\'`,
      );
    } else if (filter.kind === 'equals') {
      const { left, right } = this.typed(column, filter.value);
      this.parts.push(`${left} = ${right}`);
    } else {
      if (filter.min !== undefined) {
        const { left, right } = this.typed(column, filter.min);
        this.parts.push(`${left} >= ${right}`);
      }
      if (filter.max !== undefined) {
        const { left, right } = this.typed(column, filter.max);
        this.parts.push(`${left} <= ${right}`);
      }
    }
  }

  /** Rows with `text` in any text column (none: no row). */
  search(columns: FileColumn[], text: string): void {
    const texts = columns.filter((column) => column.kind === 'text');
    if (texts.length === 0) {
      this.parts.push('false');
      return;
    }
    const like = this.param(`%${likeEscaped(text)}%`);
    this.parts.push(
      `(${texts.map((column) => `${nfc(identifier(column.name))} ILIKE ${like} ESCAPE '\\'`).join(' OR ')})`,
    );
  }

  get sql(): string {
    return this.parts.length === 0 ? '' : ` WHERE ${this.parts.join(' AND ')}`;
  }
}

/** The conditions of a query's filters and search, over a file's columns. */
export function conditionsOf(
  query: Pick<TableQuery, 'filters' | 'search'>,
  columns: FileColumn[],
  params: unknown[],
): Conditions {
  // Names compared composed (NFC): a descriptor's name and its file's may be written either way.
  const byName = new Map(columns.map((column) => [column.name.normalize('NFC'), column]));
  const conditions = new Conditions(params);
  for (const filter of query.filters) {
    const column = byName.get(filter.column.normalize('NFC'));
    // A column of the descriptor missing from the file: no row has a value there.
    if (!column)
      conditions.parts.push(filter.kind === 'missing' && !filter.present ? 'true' : 'false');
    else conditions.filter(column, filter);
  }
  if (query.search !== undefined && query.search !== '') conditions.search(columns, query.search);
  return conditions;
}
