/**
 * Each table's column statistics, computed once per revision after its publication (off the
 * publisher's path, as change summaries are) and kept with the revision: missing values,
 * distinct values (DuckDB's approx_count_distinct, a HyperLogLog estimate within a few per
 * cent, exact for few values), minimum and maximum, a histogram of 20 equal bins for
 * numbers, dates, datetimes and years, and the 10 most frequent values (cut to 100
 * characters) for text, booleans and the rest. A revision published before statistics were
 * kept has them computed on the first ask, once.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { isDerived, resourceName } from '@data/core';
import type { Revision } from '../../engines/metadata/types.js';
import type { HubParts } from '../../parts.js';
import { storedPackage, type Published } from '../published.js';
import type { LocalParquet } from './local-files.js';
import { identifier, jsonCell, kindOf, type FileColumn, type Kind } from './sql.js';
import type { TableViewer } from './engine.js';
import type { Cell, ColumnStats, TableStats } from './types.js';

/** What a revision keeps: each table's statistics. */
export interface RevisionStats {
  version: 1;
  tables: TableStats[];
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

/** A bin's edge as a cell of its column. */
function edge(column: FileColumn, value: number): Cell {
  if (column.kind === 'date')
    return new Date(Math.round(value) * 86_400_000).toISOString().slice(0, 10);
  if (column.kind === 'timestamptz' || column.kind === 'timestamp')
    return new Date(Math.round(value * 1000)).toISOString();
  return Number(value.toPrecision(12));
}

/** A cell of min or max as the viewer writes cells (dates ISO). */
function rangeExpression(column: FileColumn, of: 'min' | 'max'): string {
  const name = identifier(column.name);
  if (column.kind === 'timestamptz') return `strftime(${of}(${name}), '%Y-%m-%dT%H:%M:%S.%gZ')`;
  if (column.kind === 'timestamp') return `strftime(${of}(${name}), '%Y-%m-%dT%H:%M:%S.%g')`;
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
  const parts = ['count(*) AS total'];
  columns.forEach((column, index) => {
    const name = identifier(column.name);
    const distinctOf = column.kind === 'other' ? `CAST(${name} AS VARCHAR)` : name;
    parts.push(`count(*) - count(${name}) AS m${String(index)}`);
    parts.push(`approx_count_distinct(${distinctOf}) AS d${String(index)}`);
    if (RANGED.has(column.kind))
      parts.push(
        `${rangeExpression(column, 'min')} AS lo${String(index)}`,
        `${rangeExpression(column, 'max')} AS hi${String(index)}`,
      );
    if (BINNED.has(column.kind))
      parts.push(
        `min(${binned(column)}) AS blo${String(index)}`,
        `max(${binned(column)}) AS bhi${String(index)}`,
      );
  });
  const whole = await connection.runAndReadAll(`SELECT ${parts.join(', ')} FROM read_parquet($1)`, [
    file.path,
  ]);
  const row = whole.getRowObjectsJS()[0] ?? {};
  const rows = Number(row.total ?? 0);
  const stats: ColumnStats[] = [];
  for (const [index, column] of columns.entries()) {
    const at = (key: string) => row[`${key}${String(index)}`];
    const one: ColumnStats = {
      name: column.name,
      type: types.get(column.name) ?? 'string',
      missing: Number(at('m') ?? 0),
      distinct: Number(at('d') ?? 0),
    };
    if (RANGED.has(column.kind) && at('lo') !== null && at('lo') !== undefined) {
      one.min = jsonCell(at('lo'));
      one.max = jsonCell(at('hi'));
    }
    if (BINNED.has(column.kind) && typeof at('blo') === 'number')
      one.histogram = await histogram(
        connection,
        file,
        column,
        at('blo') as number,
        at('bhi') as number,
      );
    else if (!RANGED.has(column.kind) && one.missing < rows)
      one.top = await topValues(connection, file, column);
    stats.push(one);
  }
  return { table, rows, columns: stats };
}

async function histogram(
  connection: DuckDBConnection,
  file: LocalParquet,
  column: FileColumn,
  low: number,
  high: number,
): Promise<ColumnStats['histogram']> {
  const width = (high - low) / HISTOGRAM_BINS || 1;
  const value = binned(column);
  const result = await connection.runAndReadAll(
    `SELECT least(CAST(floor((${value} - $2) / $3) AS INTEGER), ${String(HISTOGRAM_BINS - 1)}) AS bin, count(*) AS n
     FROM read_parquet($1) WHERE ${value} IS NOT NULL GROUP BY bin`,
    [file.path, low, width],
  );
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
  for (const [bin, n] of result.getRowsJS()) counts[Number(bin)] = Number(n);
  // One value throughout: one bin.
  const bins = high === low ? 1 : HISTOGRAM_BINS;
  return counts.slice(0, bins).map((count, bin) => ({
    from: edge(column, low + bin * width),
    to: edge(column, bins === 1 ? high : low + (bin + 1) * width),
    count: bins === 1 ? counts.reduce((sum, each) => sum + each, 0) : count,
  }));
}

async function topValues(
  connection: DuckDBConnection,
  file: LocalParquet,
  column: FileColumn,
): Promise<ColumnStats['top']> {
  const name = identifier(column.name);
  const value =
    column.kind === 'bool' ? name : `left(CAST(${name} AS VARCHAR), ${String(TOP_CHARACTERS)})`;
  const result = await connection.runAndReadAll(
    `SELECT ${value} AS v, count(*) AS n FROM read_parquet($1) WHERE ${name} IS NOT NULL
     GROUP BY v ORDER BY n DESC, v LIMIT ${String(TOP_VALUES)}`,
    [file.path],
  );
  return result.getRowsJS().map(([v, n]) => ({ value: jsonCell(v), count: Number(n) }));
}

/** The tables of a published revision that have statistics to compute: its originals. */
function tablesOf(pkg: Published): { name: string; types: Map<string, string> }[] {
  return pkg.descriptor.resources
    .filter((resource) => !isDerived(resource))
    .map((resource) => {
      const fields = (resource.schema as { fields?: unknown } | undefined)?.fields;
      const types = new Map<string, string>();
      if (Array.isArray(fields))
        for (const field of fields as { name?: unknown; type?: unknown }[])
          types.set(String(field.name), typeof field.type === 'string' ? field.type : 'string');
      return { name: resourceName(resource), types };
    });
}

/** Every table's statistics of a revision, within STATS_BYTES. */
export function revisionStats(
  viewer: TableViewer,
  pkg: Published,
  signal: AbortSignal | undefined,
  seconds: number,
): Promise<RevisionStats> {
  return viewer.withStatsEngine(async (engine) => {
    const stats: RevisionStats = { version: 1, tables: [] };
    let bytes = 0;
    for (const { name, types } of tablesOf(pkg)) {
      signal?.throwIfAborted();
      const file = await viewer.files.acquire(pkg, name);
      if (!file) continue;
      try {
        const table = await engine.run(
          (connection) => computeTableStats(connection, file, name, types),
          signal,
          seconds,
        );
        const size = JSON.stringify(table).length;
        if (bytes + size > STATS_BYTES) continue;
        bytes += size;
        stats.tables.push(table);
      } finally {
        file.release();
      }
    }
    return stats;
  });
}

type StatsHub = Pick<HubParts, 'store' | 'options' | 'log'> & { viewer: TableViewer };

/** Statistics being computed, by revision: concurrent asks share one. */
const computing = new WeakMap<TableViewer, Map<string, Promise<void>>>();
/** Revisions whose statistics failed in this process: not tried again on each ask. */
const failed = new WeakMap<TableViewer, Set<string>>();

/**
 * Computes and keeps a published revision's statistics, unless kept already; asks made
 * while it runs share it.
 */
export function keepStats(
  hub: StatsHub,
  which: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
  signal?: AbortSignal,
): Promise<void> {
  let running = computing.get(hub.viewer);
  if (!running) {
    running = new Map<string, Promise<void>>();
    computing.set(hub.viewer, running);
  }
  const key = `${which.ownerid}\0${which.dataset}\0${String(which.revision)}`;
  const known = running.get(key);
  if (known) return known;
  let failures = failed.get(hub.viewer);
  if (!failures) failed.set(hub.viewer, (failures = new Set()));
  if (failures.has(key)) return Promise.resolve();
  const work = (async () => {
    const owner = await hub.store.userById(which.ownerid);
    const dataset = owner && (await hub.store.dataset(which.ownerid, which.dataset));
    const revision =
      dataset && (await hub.store.revision(which.ownerid, which.dataset, String(which.revision)));
    const pkg = owner && dataset && revision && storedPackage(owner, dataset, revision);
    if (!pkg || revision.stats) return;
    if ((await hub.viewer.engine.available()) !== true) return;
    const stats = await revisionStats(
      hub.viewer,
      pkg,
      signal,
      hub.options.limits.processingSeconds,
    );
    await hub.store.saveStats(which, JSON.stringify(stats));
  })()
    .catch((error: unknown) => {
      if (!signal?.aborted) failures.add(key);
      throw error;
    })
    .finally(() => running.delete(key));
  running.set(key, work);
  return work;
}

/**
 * A table's statistics of a revision; undefined while they are not computed (a revision
 * published before they were kept: they are then computed, once, in the background).
 */
export function tableStats(
  hub: StatsHub,
  pkg: Published,
  table: string,
): Promise<TableStats | undefined> {
  const kept = pkg.revision.stats;
  if (kept) {
    const stats = JSON.parse(kept) as RevisionStats;
    return Promise.resolve(stats.tables.find((each) => each.table === table));
  }
  keepStats(hub, pkg.revision).catch((error: unknown) => {
    hub.log(
      `the column statistics of ${pkg.prefix} could not be computed: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  return Promise.resolve(undefined);
}
