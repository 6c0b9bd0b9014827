/**
 * Each table's column statistics, computed once per revision after its publication (off the
 * publisher's path, as change summaries are) and kept with the revision: missing values,
 * distinct values (exact up to EXACT_ROWS rows; past them DuckDB's approx_count_distinct, a
 * HyperLogLog estimate up to 24 % off, marked approximate, for columns of many values),
 * minimum and maximum, a histogram of 20 equal bins for
 * numbers, dates, datetimes and years, and the 10 most frequent values (cut to 100
 * characters) for text, booleans and the rest. A revision published before statistics were
 * kept has them computed on the first ask, once.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { derivedOf, isDerived, resourceName, version } from '@data/core';
import type { Revision } from '../../engines/metadata/types.js';
import type { HubParts } from '../../parts.js';
import { storedPackage, type Published } from '../published.js';
import type { LocalParquet } from './local-files.js';
import {
  identifier,
  isoText,
  jsonCell,
  kindOf,
  nfc,
  typeName,
  type FileColumn,
  type Kind,
} from './sql.js';
import type { TableViewer } from './engine.js';
import type { Cell, ColumnStats, TableStats } from './types.js';

/** What a revision keeps: each table's statistics. */
export interface RevisionStats {
  version: 1;
  tables: TableStats[];
  /** Tables left after publication for their first view (larger than EAGER_ROWS). */
  deferred?: string[];
  /**
   * Tables whose statistics failed, why, and the hub version that tried: not tried again on
   * each ask, but again by a hub of another version (which may have fixed the cause).
   */
  failed?: StatsFailure[];
}

export interface StatsFailure {
  table: string;
  reason: string;
  hub: string;
}

/** A table whose statistics this hub version failed to compute: it does not try again. */
function failedHere(kept: RevisionStats | undefined, table: string): boolean {
  return kept?.failed?.some((each) => each.table === table && each.hub === version()) ?? false;
}

export const HISTOGRAM_BINS = 20;
export const TOP_VALUES = 10;
export const TOP_CHARACTERS = 100;
/** Columns of one table with statistics: the first ones. */
export const STATS_COLUMNS = 200;
/** The most a revision's statistics take in the metadata store; tables past it have none. */
export const STATS_BYTES = 1024 * 1024;

const RANGED: ReadonlySet<Kind> = new Set([
  'int',
  'float',
  'date',
  'timestamptz',
  'timestamp',
  'time',
]);
const BINNED: ReadonlySet<Kind> = new Set(['int', 'float', 'date', 'timestamptz', 'timestamp']);

/** A column as a number a histogram bins: days for dates, seconds for datetimes. */
function binned(column: FileColumn): string {
  const name = identifier(column.name);
  if (column.kind === 'date') return `CAST(${name} - DATE '1970-01-01' AS DOUBLE)`;
  if (column.kind === 'timestamptz' || column.kind === 'timestamp') return `epoch(${name})`;
  return `CAST(${name} AS DOUBLE)`;
}

/**
 * A column's values as they are told apart: text in its composed form (NFC), as the filters
 * compare it (Genève written decomposed is the same value; ASCII text costs nothing more:
 * 988,765 distinct notes of a million rows counted in 206 ms, 217 ms without).
 */
function distinctValue(column: FileColumn): string {
  const name = identifier(column.name);
  if (column.kind === 'text') return nfc(name);
  return column.kind === 'other' ? `CAST(${name} AS VARCHAR)` : name;
}

/** A bin's edge as a cell of its column. */
function edge(column: FileColumn, value: number): Cell {
  if (column.kind === 'date')
    return new Date(Math.round(value) * 86_400_000).toISOString().slice(0, 10);
  if (column.kind === 'timestamptz' || column.kind === 'timestamp') {
    const iso = new Date(Math.round(value * 1000)).toISOString().replace(/\.000Z$/, 'Z');
    return column.kind === 'timestamp' ? iso.replace(/Z$/, '') : iso;
  }
  return Number(value.toPrecision(12));
}

/** A cell of min or max as the viewer writes cells (dates ISO). */
function rangeExpression(column: FileColumn, of: 'min' | 'max'): string {
  const name = identifier(column.name);
  if (column.kind === 'timestamptz') return isoText(`${of}(${name})`, true);
  if (column.kind === 'timestamp') return isoText(`${of}(${name})`, false);
  if (column.kind === 'date' || column.kind === 'time') return `CAST(${of}(${name}) AS VARCHAR)`;
  return `${of}(${name})`;
}

/** One table's statistics, from its Parquet file. */
export async function computeTableStats(
  connection: DuckDBConnection,
  file: LocalParquet,
  table: string,
  types: Map<string, string>,
): Promise<TableStats> {
  const shape = await connection.runAndReadAll('SELECT * FROM read_parquet($1) LIMIT 0', [
    file.path,
  ]);
  const kinds = shape.columnTypes().map((type) => kindOf(String(type)));
  const columns: FileColumn[] = shape
    .columnNames()
    .map((name, index) => ({ name, kind: kinds[index] ?? 'other' }))
    .slice(0, STATS_COLUMNS);
  const facts: ColumnFacts[] = [];
  let rows = 0;
  for (const batch of batches(columns, AGGREGATED_COLUMNS)) {
    const found = await aggregates(connection, file, batch);
    rows = found.rows;
    facts.push(...found.columns);
  }
  const exact = await exactDistinct(
    connection,
    file,
    columns,
    rows,
    (index) => facts[index]?.estimate ?? 0,
  );
  const stats: ColumnStats[] = [];
  for (const [index, column] of columns.entries()) {
    const of = facts[index];
    const missing = of?.missing ?? 0;
    const counted = exact.get(index);
    // An estimate is never more than the values there are.
    const estimate = Math.min(of?.estimate ?? 0, rows - missing);
    const one: ColumnStats = {
      name: column.name,
      type: types.get(column.name) ?? typeName(column),
      missing,
      distinct: counted ?? estimate,
      ...(counted === undefined ? { approximate: true } : {}),
    };
    const lo = of?.lo;
    if (RANGED.has(column.kind) && lo !== null && lo !== undefined) {
      one.min = jsonCell(lo);
      one.max = jsonCell(of?.hi);
    }
    const blo = of?.blo;
    if (BINNED.has(column.kind) && typeof blo === 'number')
      one.histogram = await histogram(connection, file, column, blo, of?.bhi as number);
    else if (!RANGED.has(column.kind) && one.missing < rows)
      one.top = await topValues(connection, file, column);
    stats.push(one);
  }
  return { table, rows, columns: stats };
}

/**
 * Columns aggregated in one pass, and counted exactly in one: each column's aggregates hold
 * memory of their own until the pass ends, and the statistics have little (statsMemoryMb):
 * all of a 300-column table's at once ran out of 64 MB at 2,000 rows.
 */
const AGGREGATED_COLUMNS = 16;
const COUNTED_COLUMNS = 4;

function batches<T>(items: T[], size: number): T[][] {
  const all: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    all.push(items.slice(start, start + size));
  return all;
}

/** What one pass over a column finds: missing values, an estimate of distinct, its range. */
interface ColumnFacts {
  missing: number;
  estimate: number;
  lo?: unknown;
  hi?: unknown;
  blo?: unknown;
  bhi?: unknown;
}

/** The rows of a table, and its columns' facts, in one pass over these columns. */
async function aggregates(
  connection: DuckDBConnection,
  file: LocalParquet,
  columns: FileColumn[],
): Promise<{ rows: number; columns: ColumnFacts[] }> {
  // Results are read by position, never by a name: a name given to a result could be one of
  // the table's columns, which DuckDB would bind instead (a column named `n` or `v`).
  const parts = new Results();
  const total = parts.add('count(*)');
  const at = columns.map((column) => {
    const name = identifier(column.name);
    const distinctOf = distinctValue(column);
    return {
      missing: parts.add(`count(*) - count(${name})`),
      estimate: parts.add(`approx_count_distinct(${distinctOf})`),
      ...(RANGED.has(column.kind)
        ? {
            lo: parts.add(rangeExpression(column, 'min')),
            hi: parts.add(rangeExpression(column, 'max')),
          }
        : {}),
      ...(BINNED.has(column.kind)
        ? { blo: parts.add(`min(${binned(column)})`), bhi: parts.add(`max(${binned(column)})`) }
        : {}),
    };
  });
  const result = await connection.runAndReadAll(`SELECT ${parts.sql} FROM read_parquet($1)`, [
    file.path,
  ]);
  const row = result.getRowsJS()[0] ?? [];
  const value = (index: number | undefined) => (index === undefined ? undefined : row[index]);
  return {
    rows: Number(row[total] ?? 0),
    columns: at.map((of) => ({
      missing: Number(value(of.missing) ?? 0),
      estimate: Number(value(of.estimate) ?? 0),
      lo: value(of.lo),
      hi: value(of.hi),
      blo: value(of.blo),
      bhi: value(of.bhi),
    })),
  };
}

/** The expressions of one SELECT, each read back by its position. */
class Results {
  private readonly parts: string[] = [];
  add(expression: string): number {
    this.parts.push(expression);
    return this.parts.length - 1;
  }
  get sql(): string {
    return this.parts.join(', ');
  }
}

/**
 * Up to this many rows, a table's distinct values are counted exactly, every column: five
 * columns of 1,000,000 rows (unique ids and texts among them) take 0.31 s, 2,000,000 rows
 * 0.62 s, with one thread within statsMemoryMb (64 MB), where the estimate said 1,179,130
 * texts of 1,000,000 (docs/performance.md).
 */
export const EXACT_ROWS = 2_000_000;
/** Past EXACT_ROWS, columns whose estimate is above this are counted approximately only. */
export const EXACT_DISTINCT = 100_000;

/**
 * The exact distinct counts, in one more pass: of every column of a table up to EXACT_ROWS;
 * past it, of the columns whose estimate is small (a few categories, which the estimate may
 * miss by some: 46 of 50), cheap as their values are few.
 */
async function exactDistinct(
  connection: DuckDBConnection,
  file: LocalParquet,
  columns: FileColumn[],
  rows: number,
  estimate: (index: number) => number,
): Promise<Map<number, number>> {
  const few = [...columns.entries()].filter(
    ([index]) => rows <= EXACT_ROWS || estimate(index) <= EXACT_DISTINCT,
  );
  const counted = new Map<number, number>();
  for (const batch of batches(few, COUNTED_COLUMNS)) {
    const parts = batch.map(([, column]) => {
      return `count(DISTINCT ${distinctValue(column)})`;
    });
    const result = await connection.runAndReadAll(
      `SELECT ${parts.join(', ')} FROM read_parquet($1)`,
      [file.path],
    );
    const row = result.getRowsJS()[0] ?? [];
    for (const [at, [index]] of batch.entries()) counted.set(index, Number(row[at] ?? 0));
  }
  return counted;
}

async function histogram(
  connection: DuckDBConnection,
  file: LocalParquet,
  column: FileColumn,
  low: number,
  high: number,
): Promise<ColumnStats['histogram']> {
  // An integer or date column's bins hold whole numbers (of days): each from one to another,
  // inclusive, so that three days are three bins, not 20 each "2020-01-01 to 2020-01-01".
  const whole = column.kind === 'int' || column.kind === 'date';
  // A datetime column's bins are whole seconds, from a whole second: a span of a few seconds
  // is a bin a second, not 20 of a quarter of one.
  const seconds = column.kind === 'timestamp' || column.kind === 'timestamptz';
  const start = seconds ? Math.floor(low) : low;
  const width = whole
    ? Math.max(1, Math.ceil((high - low + 1) / HISTOGRAM_BINS))
    : seconds
      ? Math.max(1, Math.ceil((high - start) / HISTOGRAM_BINS))
      : (high - low) / HISTOGRAM_BINS || 1;
  const value = binned(column);
  const result = await connection.runAndReadAll(
    `SELECT least(CAST(floor((${value} - $2) / $3) AS INTEGER), ${String(HISTOGRAM_BINS - 1)}), count(*)
     FROM read_parquet($1) WHERE ${value} IS NOT NULL GROUP BY 1`,
    [file.path, start, width],
  );
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
  for (const [bin, n] of result.getRowsJS()) counts[Number(bin)] = Number(n);
  // One value throughout: one bin.
  const bins =
    high === low
      ? 1
      : whole
        ? Math.ceil((high - low + 1) / width)
        : seconds
          ? Math.min(HISTOGRAM_BINS, Math.floor((high - start) / width) + 1)
          : HISTOGRAM_BINS;
  return counts.slice(0, bins).map((count, bin) => ({
    from: edge(column, bin === 0 ? low : start + bin * width),
    to: edge(
      column,
      bins === 1
        ? high
        : whole
          ? Math.min(high, low + (bin + 1) * width - 1)
          : Math.min(high, start + (bin + 1) * width),
    ),
    count: bins === 1 ? counts.reduce((sum, each) => sum + each, 0) : count,
  }));
}

async function topValues(
  connection: DuckDBConnection,
  file: LocalParquet,
  column: FileColumn,
): Promise<ColumnStats['top']> {
  const name = identifier(column.name);
  // Text counted in its composed form (NFC): `Genève` written composed and decomposed is one
  // value, as the viewer's filters compare it.
  const text = column.kind === 'text' ? nfc(name) : `CAST(${name} AS VARCHAR)`;
  const value = column.kind === 'bool' ? name : `left(${text}, ${String(TOP_CHARACTERS)})`;
  const result = await connection.runAndReadAll(
    `SELECT ${value}, count(*) FROM read_parquet($1) WHERE ${name} IS NOT NULL
     GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${String(TOP_VALUES)}`,
    [file.path],
  );
  return result.getRowsJS().map(([v, n]) => ({ value: jsonCell(v), count: Number(n) }));
}

/** The tables of a published revision that have statistics to compute: its originals. */
function tablesOf(pkg: Published): { name: string; types: Map<string, string>; rows?: number }[] {
  const resources = pkg.descriptor.resources;
  return resources
    .filter((resource) => !isDerived(resource))
    .map((resource) => {
      const fields = (resource.schema as { fields?: unknown } | undefined)?.fields;
      const types = new Map<string, string>();
      if (Array.isArray(fields))
        for (const field of fields as { name?: unknown; type?: unknown }[])
          types.set(String(field.name), typeof field.type === 'string' ? field.type : 'string');
      const csv = derivedOf(resources, 'derived/csv', resource.name);
      const rows = (csv?.datahub as { rows?: unknown } | undefined)?.rows;
      return { name: resourceName(resource), types, ...(typeof rows === 'number' ? { rows } : {}) };
    });
}

/**
 * The statistics of the named tables of a revision (all when `names` is undefined), within
 * STATS_BYTES beside those already kept (`bytes`).
 */
export function revisionStats(
  viewer: TableViewer,
  pkg: Published,
  signal: AbortSignal | undefined,
  seconds: number,
  names?: string[],
  bytes = 0,
): Promise<RevisionStats> {
  return viewer.withStatsEngine(async (engine) => {
    const stats: RevisionStats = { version: 1, tables: [] };
    let kept = bytes;
    for (const { name, types } of tablesOf(pkg)) {
      if (names && !names.includes(name)) continue;
      signal?.throwIfAborted();
      // Waited for as long as its making takes: statistics are made in the background.
      const file = await viewer.files.acquire(pkg, name);
      if (!file || file === 'making') continue;
      try {
        const table = await engine.run(
          (connection) => computeTableStats(connection, file, name, types),
          signal,
          seconds,
        );
        const size = JSON.stringify(table).length;
        if (kept + size > STATS_BYTES) continue;
        kept += size;
        stats.tables.push(table);
      } catch (error) {
        // The hub stopping, or the ask given up: no table's failure.
        if (signal?.aborted || viewer.stopping) throw error;
        // One table's failure costs that table only: the others' statistics are kept.
        const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
        viewer.hub.log(
          `the column statistics of table "${name}" of ${pkg.prefix} could not be computed (not tried again by this hub version): ${reason}`,
        );
        (stats.failed ??= []).push({ table: name, reason, hub: version() });
      } finally {
        file.release();
      }
    }
    return stats;
  });
}

/**
 * The most rows of a table whose statistics are computed right after its publication; a
 * larger table's (whose Parquet copy takes minutes and a worker's memory to make, perhaps
 * for nobody) on its first view.
 */
export const EAGER_ROWS = 1_000_000;

type StatsHub = Pick<HubParts, 'store' | 'options' | 'log'> & { viewer: TableViewer };

/** Statistics being computed, by revision and tables: concurrent asks share one. */
const computing = new WeakMap<TableViewer, Map<string, Promise<void>>>();
/** The last computation of each revision: the next waits for it, as both rewrite its stats. */
const lastOf = new WeakMap<TableViewer, Map<string, Promise<void>>>();
/** Computations that failed in this process: not tried again on each ask. */
const failed = new WeakMap<TableViewer, Set<string>>();

function mapOf<V>(maps: WeakMap<TableViewer, Map<string, V>>, viewer: TableViewer): Map<string, V> {
  let map = maps.get(viewer);
  if (!map) {
    map = new Map<string, V>();
    maps.set(viewer, map);
  }
  return map;
}

/**
 * Computes and keeps statistics of a published revision: after its publication (`table`
 * undefined) those of its tables up to EAGER_ROWS, the larger ones left for their first view;
 * on a view, the table viewed. Asks made while one runs share it; those of one revision run
 * one after the other, each adding to what the revision keeps.
 */
export function keepStats(
  hub: StatsHub,
  which: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
  signal?: AbortSignal,
  table?: string,
): Promise<void> {
  const running = mapOf(computing, hub.viewer);
  const revisionKey = `${which.ownerid}\0${which.dataset}\0${String(which.revision)}`;
  const key = `${revisionKey}\0${table ?? ''}`;
  const known = running.get(key);
  if (known) return known;
  const failures = failed.get(hub.viewer) ?? new Set<string>();
  failed.set(hub.viewer, failures);
  if (failures.has(key)) return Promise.resolve();
  const chain = mapOf(lastOf, hub.viewer);
  const before = chain.get(revisionKey) ?? Promise.resolve();
  const work = before
    .catch(() => undefined)
    .then(async () => {
      const owner = await hub.store.userById(which.ownerid);
      const dataset = owner && (await hub.store.dataset(which.ownerid, which.dataset));
      const revision =
        dataset && (await hub.store.revision(which.ownerid, which.dataset, String(which.revision)));
      const pkg = owner && dataset && revision && storedPackage(owner, dataset, revision);
      if (!pkg) return;
      const kept: RevisionStats = revision.stats
        ? (JSON.parse(revision.stats) as RevisionStats)
        : { version: 1, tables: [] };
      // After publication, once; on a view, the table viewed unless kept or failed here.
      if (
        table === undefined
          ? revision.stats !== null
          : kept.tables.some((t) => t.table === table) || failedHere(kept, table)
      )
        return;
      if ((await hub.viewer.engine.available()) !== true) return;
      const tables = tablesOf(pkg);
      const names =
        table === undefined
          ? tables.filter((each) => (each.rows ?? Infinity) <= EAGER_ROWS).map((each) => each.name)
          : [table];
      const made = await revisionStats(
        hub.viewer,
        pkg,
        signal,
        hub.options.limits.processingSeconds,
        names,
        JSON.stringify(kept).length,
      );
      const deferred = new Set(
        table === undefined
          ? tables.map((each) => each.name).filter((name) => !names.includes(name))
          : (kept.deferred ?? []),
      );
      for (const each of made.tables) deferred.delete(each.table);
      // A table viewed whose statistics cannot be had (no rows to page, past STATS_BYTES): not
      // asked for again in this process, and nothing to keep.
      if (table !== undefined && made.tables.length === 0 && !made.failed) {
        failures.add(key);
        return;
      }
      const tried = new Set(names);
      const failed = [
        // A table tried again (by a hub of another version) has its new outcome only.
        ...(kept.failed ?? []).filter((each) => !tried.has(each.table)),
        ...(made.failed ?? []),
      ];
      const stats: RevisionStats = {
        version: 1,
        tables: [...kept.tables, ...made.tables],
        ...(deferred.size > 0 ? { deferred: [...deferred] } : {}),
        ...(failed.length > 0 ? { failed } : {}),
      };
      await hub.store.saveStats(which, JSON.stringify(stats));
    })
    .catch((error: unknown) => {
      if (!signal?.aborted) failures.add(key);
      throw error;
    })
    .finally(() => {
      running.delete(key);
      if (chain.get(revisionKey) === settled) chain.delete(revisionKey);
    });
  const settled = work.catch(() => undefined);
  chain.set(revisionKey, settled);
  running.set(key, work);
  return work;
}

/**
 * A table's statistics of a revision; undefined while they are not computed (a table larger
 * than EAGER_ROWS, or of a revision published before statistics were kept: they are then
 * computed, once, in the background).
 */
export function tableStats(
  hub: StatsHub,
  pkg: Published,
  table: string,
): Promise<TableStats | undefined> {
  const kept = pkg.revision.stats ? (JSON.parse(pkg.revision.stats) as RevisionStats) : undefined;
  const found = kept?.tables.find((each) => each.table === table);
  if (found) return Promise.resolve(found);
  // Failed (and logged) by this hub version: not tried on every ask.
  if (failedHere(kept, table)) return Promise.resolve(undefined);
  keepStats(hub, pkg.revision, undefined, table).catch((error: unknown) => {
    hub.log(
      `the column statistics of ${pkg.prefix} could not be computed: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  return Promise.resolve(undefined);
}
