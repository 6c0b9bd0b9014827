/**
 * The table viewer's engine (issue 50): DuckDB reading the hub's Parquet copy of a table, as
 * docs/performance.md's "Table viewer engine" measured. A page of any table sorted by any
 * column, filtered by columns and searched; how many rows match, counted once per filter
 * and search (paging does not count again); the table's column statistics (stats.ts).
 * Where DuckDB cannot load, pages in the table's order still come from its CSV copy, and
 * sorting, filtering and searching are answered as unavailable.
 */
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { derivedOf, type Resource } from '@data/core';
import type { DuckDBConnection } from '@duckdb/node-api';
import { BoundedCache } from '../../bounded-cache.js';
import { HttpError } from '../../http-error.js';
import type { HubParts } from '../../parts.js';
import type { Copies } from '../copies/copies.js';
import { rowsPage } from '../copies/table-rows.js';
import type { Published } from '../published.js';
import { DEFAULT_VIEWER, type ViewerOptions } from '../../options.js';
import { DuckEngine, QueryStopped, SMALL_BYTES, SMALL_ROWS } from './duckdb.js';
import { LocalFiles, tableOf, type LocalParquet } from './local-files.js';
import {
  cellExpression,
  conditionsOf,
  identifier,
  jsonCell,
  kindOf,
  typeName,
  type FileColumn,
} from './sql.js';
import type { Cell, TablePage, TableQuery, ViewerColumn } from './types.js';

/** What the viewer answers when it cannot answer a query: why, in words for the page. */
export interface ViewerUnavailable {
  unavailable: 'engine' | 'copy' | 'depth' | 'making';
  message: string;
}

export const ENGINE_MISSING = 'sorting, filtering and searching are unavailable on this hub';
export const MAKING =
  'the hub is making this table ready for sorting, filtering and searching: try again in a minute';

/** Without the engine, rows come from the CSV copy read from its start: this deep at most. */
export const FALLBACK_DEEPEST = 10_000;

/** What a file holds: its columns as DuckDB reads them and its rows. */
export interface FileFacts {
  columns: FileColumn[];
  rows: number;
}

/** The columns of a table as the viewer shows them: its schema's fields, named and typed. */
export function viewerColumns(resource: Resource): ViewerColumn[] {
  const fields = (resource.schema as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.map((field: { name?: unknown; type?: unknown }) => ({
    name: String(field.name),
    type: typeof field.type === 'string' && field.type !== '' ? field.type : 'string',
  }));
}

/**
 * How long a page waits for its table's Parquet copy to be made (a large table's first view):
 * past it, the page comes from the CSV copy, and a sort, filter or search says to come back.
 */
export const COPY_WAIT_MS = 3000;

/** Rows counted past a page before its count is said to be a lower bound. */
export const COUNT_AHEAD = 10_000;

/** What names a count: the file, the filters and the search. */
function countKey(file: LocalParquet, query: TableQuery): string {
  return JSON.stringify([file.id, query.filters, query.search ?? '']);
}

/** Whether a query asks only for rows in the table's order. */
export function isPlain(query: TableQuery): boolean {
  return !query.sort && query.filters.length === 0 && (query.search ?? '') === '';
}

/** A DuckDB error from a value it could not read as its column's type: the client's. */
function clientError(error: unknown): HttpError | undefined {
  const message = error instanceof Error ? error.message : '';
  if (/^(Conversion|Invalid Input|Out of Range) Error/.test(message))
    return new HttpError(400, 'a value of the filters is not one of its column');
  return undefined;
}

export class TableViewer {
  readonly engine: DuckEngine;
  readonly files: LocalFiles;
  readonly options: ViewerOptions;
  /** Each file's columns and rows, by what names its bytes. */
  private readonly facts = new BoundedCache<FileFacts>(4 * 1024 * 1024);
  /** How long a page waits for its table's Parquet copy (COPY_WAIT_MS; tests shorten it). */
  copyWaitMs = COPY_WAIT_MS;
  /** Rows matching a filter and search, by file and query. */
  private readonly counts = new BoundedCache<number>(1024 * 1024);

  constructor(
    readonly hub: Pick<HubParts, 'storage' | 'store' | 'tmpDir' | 'log' | 'options'>,
    readonly copies: Pick<Copies, 'answer' | 'read'>,
    options: Partial<ViewerOptions> = {},
  ) {
    this.options = { ...DEFAULT_VIEWER, ...options };
    const folder = join(hub.tmpDir, 'viewer');
    this.files = new LocalFiles(
      hub,
      copies,
      join(folder, 'files'),
      this.options.cacheMb * 1024 ** 2,
    );
    // Each folder as named and as its links resolve (a temporary folder under a link, as
    // macOS has): DuckDB may check either.
    const real = (() => {
      try {
        return realpathSync(hub.tmpDir);
      } catch {
        return hub.tmpDir;
      }
    })();
    const readable = [hub.tmpDir, real].flatMap((root) => [
      `${join(root, 'viewer', 'files')}/`,
      `${join(root, 'copies')}/`,
    ]);
    this.readable = [...new Set(readable)];
    this.engine = new DuckEngine(this.options, join(folder, 'spill'), this.readable);
  }

  private readonly readable: string[];
  /** The instance of the column statistics, while some are being made. */
  private statsEngine: DuckEngine | undefined;
  private statsUsers = 0;

  /**
   * Runs `work` with the statistics' own DuckDB: one thread, one query at a time, within
   * statsMemoryMb, so that statistics after a publication take little of the hub beside its
   * pages. Opened when first needed and closed once no statistics are being made.
   */
  async withStatsEngine<T>(work: (engine: DuckEngine) => Promise<T>): Promise<T> {
    if (this.stopped) throw new QueryStopped('the hub is stopping');
    this.statsUsers++;
    const engine = (this.statsEngine ??= new DuckEngine(
      {
        ...this.options,
        memoryMb: this.options.statsMemoryMb,
        threads: 1,
        queries: 1,
        queued: Number.MAX_SAFE_INTEGER,
      },
      join(this.hub.tmpDir, 'viewer', 'stats-spill'),
      this.readable,
    ));
    try {
      return await work(engine);
    } finally {
      this.statsUsers--;
      if (this.statsUsers === 0 && this.statsEngine === engine) {
        this.statsEngine = undefined;
        await engine.stop();
      }
    }
  }

  private stopped = false;

  /** Whether the hub is stopping: what fails then is no table's failure. */
  get stopping(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.engine.stop(), this.statsEngine?.stop()]);
    await this.files.stop();
  }

  /**
   * A page of a table of a revision: its rows that the filters and search let through, in
   * the order asked (the file's order within equal values, so that paging is deterministic).
   */
  async queryTable(
    pkg: Published,
    query: TableQuery,
    signal?: AbortSignal,
    /** Who asks (the signed-in user, else the address): a fair share of the engine each. */
    client?: string,
  ): Promise<TablePage | ViewerUnavailable> {
    const source = tableOf(pkg, query.table);
    if (!source) throw new HttpError(404, `no table named "${query.table}"`);
    const available = await this.engine.available();
    if (available !== true) return this.fromCsv(pkg, source, query);
    const file = await this.files.acquire(pkg, query.table, this.copyWaitMs);
    if (!file) return this.fromCsv(pkg, source, query);
    if (file === 'making') return this.fromCsv(pkg, source, query, true);
    try {
      const small = await this.smallTable(pkg, source, file);
      const page = await this.engine.run(
        (connection) => this.page(connection, file, viewerColumns(source), query),
        signal,
        undefined,
        client === undefined ? undefined : { key: client, small },
      );
      if (page.atLeast) this.countAll(pkg, query, countKey(file, query));
      return page;
    } catch (error) {
      throw clientError(error) ?? stopped(error);
    } finally {
      file.release();
    }
  }

  /**
   * A table's columns and their types, the one rule of the page, the rows route and the
   * statistics: its schema's fields when it has a schema; else what its Parquet copy holds,
   * as Table Schema types; else (no engine, the copy not made within copyWaitMs) its CSV
   * copy's header, as text, which cannot be sorted or filtered then anyway.
   */
  async tableColumns(pkg: Published, table: string, signal?: AbortSignal): Promise<ViewerColumn[]> {
    const source = tableOf(pkg, table);
    if (!source) return [];
    const shown = viewerColumns(source);
    if (shown.length > 0) return shown;
    if ((await this.engine.available()) === true) {
      const file = await this.files.acquire(pkg, table, this.copyWaitMs);
      if (file && file !== 'making')
        try {
          const facts =
            this.facts.get(file.id) ??
            (await this.engine.run((connection) => this.factsOf(connection, file), signal));
          return facts.columns.map((column) => ({ name: column.name, type: typeName(column) }));
        } catch (error) {
          throw stopped(error);
        } finally {
          file.release();
        }
    }
    const csv = derivedOf(pkg.descriptor.resources, 'derived/csv', source.name);
    if (!csv) return [];
    const { labels } = await rowsPage(() => this.copies.read(pkg, csv), 0, 0);
    return labels.map((name) => ({ name, type: 'string' }));
  }

  /**
   * Whether a table's questions take the small lane: by its rows (a million rows of a few
   * columns are a 4 MB Parquet file, and sort as slowly as any), counted from its file once
   * asked, else as its CSV copy counts them, else by the file's size alone.
   */
  private async smallTable(pkg: Published, source: Resource, file: LocalParquet): Promise<boolean> {
    const csv = derivedOf(pkg.descriptor.resources, 'derived/csv', source.name);
    const counted = (csv?.datahub as { rows?: unknown } | undefined)?.rows;
    const rows =
      this.facts.get(file.id)?.rows ?? (typeof counted === 'number' ? counted : undefined);
    if (rows !== undefined) return rows <= SMALL_ROWS;
    return ((await stat(file.path).catch(() => undefined))?.size ?? Infinity) < SMALL_BYTES;
  }

  /** A file's columns and rows, asked once. */
  async factsOf(connection: DuckDBConnection, file: LocalParquet): Promise<FileFacts> {
    const known = this.facts.get(file.id);
    if (known) return known;
    const shape = await connection.runAndReadAll('SELECT * FROM read_parquet($1) LIMIT 0', [
      file.path,
    ]);
    const names = shape.columnNames();
    const types = shape.columnTypes();
    const columns = names.map((name, index) => ({ name, kind: kindOf(String(types[index])) }));
    const counted = await connection.runAndReadAll('SELECT count(*) FROM read_parquet($1)', [
      file.path,
    ]);
    const facts = { columns, rows: Number(counted.getRowsJS()[0]?.[0] ?? 0) };
    this.facts.set(file.id, facts, 256 + JSON.stringify(columns).length);
    return facts;
  }

  private async page(
    connection: DuckDBConnection,
    file: LocalParquet,
    shown: ViewerColumn[],
    query: TableQuery,
  ): Promise<TablePage> {
    const facts = await this.factsOf(connection, file);
    const columns: ViewerColumn[] =
      shown.length > 0
        ? shown
        : facts.columns.map((column) => ({ name: column.name, type: typeName(column) }));
    const byName = new Map(facts.columns.map((column) => [column.name, column]));
    const answer: TablePage = {
      table: query.table,
      columns,
      rows: [],
      offset: query.offset,
      matching: facts.rows,
      total: facts.rows,
    };
    // The virtual column would hide a publisher's column of its name: read by offset then.
    const numbered = !byName.has('file_row_number');
    if (!isPlain(query)) {
      const counted = await this.matching(connection, file, facts, query);
      answer.matching = counted.count;
      if (!counted.exact) answer.atLeast = true;
    }
    if (query.offset >= answer.matching) return answer;
    const selected = columns.map((column) => {
      const found = byName.get(column.name);
      return found ? cellExpression(found) : 'NULL';
    });
    const params: unknown[] = [file.path];
    const from = `read_parquet($1${numbered ? ', file_row_number = true' : ''})`;
    const window = `LIMIT ${String(query.limit)} OFFSET ${String(query.offset)}`;
    let sql: string;
    if (isPlain(query) && numbered) {
      // By the file's row number, which skips whole row groups: an offset would read them.
      const last = query.offset + query.limit;
      sql = `SELECT ${selected.join(', ')} FROM ${from} WHERE file_row_number >= ${String(query.offset)} AND file_row_number < ${String(last)} ORDER BY file_row_number`;
    } else {
      const where = conditionsOf(query, facts.columns, params).sql;
      const order: string[] = [];
      const sorted = query.sort && byName.get(query.sort.column);
      if (query.sort && sorted)
        order.push(
          `${identifier(sorted.name)} ${query.sort.descending ? 'DESC' : 'ASC'} NULLS LAST`,
        );
      if (numbered) order.push('file_row_number');
      const by = order.length > 0 ? ` ORDER BY ${order.join(', ')}` : '';
      // The page is chosen first, its cells converted after: a conversion before the sort
      // would be made for every row of the table.
      sql = `SELECT ${selected.join(', ')} FROM (SELECT * FROM ${from}${where}${by} ${window}) AS page${by}`;
    }
    const result = await connection.runAndReadAll(sql, params as never);
    answer.rows = result.getRowsJS().map((row) => row.map(jsonCell));
    return answer;
  }

  /**
   * How many rows a query's filters and search let through: counted up to a few pages past
   * the one asked (COUNT_AHEAD), which a frequent match reaches after a part of the table;
   * past it, a lower bound, while the whole count is made after the answer (`countAll`).
   */
  private async matching(
    connection: DuckDBConnection,
    file: LocalParquet,
    facts: FileFacts,
    query: TableQuery,
  ): Promise<{ count: number; exact: boolean }> {
    if (query.filters.length === 0 && (query.search ?? '') === '')
      return { count: facts.rows, exact: true };
    const key = countKey(file, query);
    const known = this.counts.get(key);
    if (known !== undefined) return { count: known, exact: true };
    const cap = query.offset + query.limit + COUNT_AHEAD;
    const params: unknown[] = [file.path];
    const where = conditionsOf(query, facts.columns, params).sql;
    const result = await connection.runAndReadAll(
      `SELECT count(*) FROM (SELECT 1 FROM read_parquet($1)${where} LIMIT ${String(cap + 1)})`,
      params as never,
    );
    const count = Number(result.getRowsJS()[0]?.[0] ?? 0);
    if (count <= cap) {
      this.counts.set(key, count, key.length * 2 + 64);
      return { count, exact: true };
    }
    return { count, exact: false };
  }

  /** Whole counts being made, by their key. */
  private readonly counting = new Map<string, Promise<void>>();

  /** Resolves once the whole counts being made are made (or failed). */
  async counted(): Promise<void> {
    while (this.counting.size > 0) await Promise.all([...this.counting.values()]);
  }

  /**
   * Makes the whole count of a query answered with a lower bound, in a turn of its own after
   * the answer, so that the next page of it has the count; once at a time per query.
   */
  private countAll(pkg: Published, query: TableQuery, key: string): void {
    if (this.counting.has(key)) return;
    const work = (async () => {
      const file = await this.files.acquire(pkg, query.table);
      if (!file || file === 'making') return;
      try {
        await this.engine.run(async (connection) => {
          const facts = await this.factsOf(connection, file);
          const params: unknown[] = [file.path];
          const where = conditionsOf(query, facts.columns, params).sql;
          const result = await connection.runAndReadAll(
            `SELECT count(*) FROM read_parquet($1)${where}`,
            params as never,
          );
          this.counts.set(key, Number(result.getRowsJS()[0]?.[0] ?? 0), key.length * 2 + 64);
        }, undefined);
      } finally {
        file.release();
      }
    })()
      // Busy, stopped or too long: a later ask tries again.
      .catch(() => undefined)
      .finally(() => this.counting.delete(key));
    this.counting.set(key, work);
  }

  /**
   * Without the engine: rows in the table's order from its CSV copy, read from its start, as
   * deep as FALLBACK_DEEPEST; a sort, filter or search is answered as unavailable.
   */
  private async fromCsv(
    pkg: Published,
    source: Resource,
    query: TableQuery,
    making = false,
  ): Promise<TablePage | ViewerUnavailable> {
    const available = await this.engine.available();
    const why = making
      ? MAKING
      : available === true
        ? 'this table has no Parquet copy: sorting, filtering and searching are unavailable for it'
        : ENGINE_MISSING;
    if (!isPlain(query))
      return {
        unavailable: making ? 'making' : available === true ? 'copy' : 'engine',
        message: why,
      };
    const csv = derivedOf(pkg.descriptor.resources, 'derived/csv', source.name);
    if (!csv) return { unavailable: 'copy', message: 'this table has no copy the hub can page' };
    if (query.offset + query.limit > FALLBACK_DEEPEST)
      return {
        // Deeper once the Parquet copy is made: for now only.
        unavailable: making ? 'making' : 'depth',
        message: `${why}; rows past the first ${FALLBACK_DEEPEST.toLocaleString('en')} are in the download`,
      };
    const page = await rowsPage(() => this.copies.read(pkg, csv), query.offset, query.limit);
    const shown = viewerColumns(source);
    const columns =
      shown.length > 0 ? shown : page.labels.map((name) => ({ name, type: 'string' }));
    const rows = (csv.datahub as { rows?: unknown } | undefined)?.rows;
    const total =
      typeof rows === 'number' ? rows : query.offset + page.rows.length + (page.more ? 1 : 0);
    return {
      table: query.table,
      columns,
      rows: page.rows.map((row) => columns.map((column, index) => csvCell(column, row[index]))),
      offset: query.offset,
      matching: total,
      total,
    };
  }
}

/** A CSV copy's cell (the hub's normal form) as JSON holds it. */
function csvCell(column: ViewerColumn, text: string | undefined): Cell {
  if (text === undefined || text === '') return null;
  if (column.type === 'number' || column.type === 'integer' || column.type === 'year') {
    const value = Number(text);
    if (Number.isFinite(value) && (column.type === 'number' || Number.isSafeInteger(value)))
      return value;
  }
  if (column.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A question interrupted: its client went, or it ran past its time. */
function stopped(error: unknown): unknown {
  if (error instanceof QueryStopped) return new HttpError(503, error.message);
  return error;
}
