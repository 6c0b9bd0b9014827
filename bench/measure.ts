/**
 * One measurement per process, so that no run warms up or pollutes another. The compile
 * cache is on, as bin/data turns it on.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { parse } from 'csv-parse';
import { inferSchema, initParser, type Parser } from 'udsv';

enableCompileCache();
// Imported after the cache is on, and before any timing.
const { validateIsolated } = await import('../packages/core/dist/validator/isolated.js');
const { CsvParser } = await import('../packages/core/dist/validator/table/csv-parser.js');
const MB = 1024 * 1024;
const [mode = '', target = ''] = process.argv.slice(2);

async function countNewlines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file, {
    highWaterMark: MB,
  }) as AsyncIterable<Buffer>) {
    let at = chunk.indexOf(10);
    while (at !== -1) {
      lines++;
      at = chunk.indexOf(10, at + 1);
    }
  }
  return lines - 1;
}

async function csvParseRecords(file: string): Promise<number> {
  let records = 0;
  for await (const _ of createReadStream(file, { highWaterMark: MB }).pipe(parse())) records++;
  return records - 1;
}

async function ownParserRecords(file: string): Promise<number> {
  let records = 0;
  const options = {
    delimiter: ',',
    quoteChar: '"',
    doubleQuote: true,
    escapeChar: null,
    skipInitialSpace: false,
  };
  const parser = new CsvParser(options, () => records++);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of createReadStream(file, {
    highWaterMark: MB,
  }) as AsyncIterable<Buffer>) {
    parser.push(decoder.decode(chunk, { stream: true }));
  }
  parser.end();
  return records - 1;
}

/** uDSV's typed parse: numbers, dates and booleans cast, rows handed on one at a time. */
async function udsvRecords(file: string): Promise<number> {
  let records = 0;
  let parser: Parser | undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of createReadStream(file, {
    highWaterMark: MB,
  }) as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    parser ??= initParser(inferSchema(text));
    parser.chunk<unknown[]>(text, parser.typedArrs, () => {
      records++;
    });
  }
  parser?.end();
  return records;
}

async function validateRows(dir: string, split?: false): Promise<number> {
  const keyMemory = process.env.KEY_MEMORY_MB ? Number(process.env.KEY_MEMORY_MB) * MB : undefined;
  const report = await validateIsolated(dir, {
    silenceMs: 60_000,
    split,
    ...(keyMemory ? { keyMemory } : {}),
  });
  if (!report.valid)
    throw new Error(`the bench package is invalid: ${String(report.stats.errors)} errors`);
  return report.tasks.reduce((sum, task) => sum + (task.stats.rows ?? 0), 0);
}

/** Peak memory of the whole command, read by GNU time: the parent here only waits. */
let commandPeakMB: number | undefined;

/** The real command, bin/data with its workers, start-up included, as a user runs it. */
function commandRows(dir: string): Promise<number> {
  const child = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, 'bin/data', '--json', 'validate', dir],
    {
      encoding: 'utf8',
    },
  );
  if (child.status !== 0) throw new Error(`data validate failed: ${child.stderr}`);
  commandPeakMB = Number(child.stderr.trim().split('\n').pop()) / 1024;
  const report = JSON.parse(child.stdout) as { tasks: { stats: { rows?: number } }[] };
  return Promise.resolve(report.tasks.reduce((sum, task) => sum + (task.stats.rows ?? 0), 0));
}

/** DuckDB reading a Parquet file: every column of every row, folded into one row. */
async function duckdbParquetRows(file: string): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT count(*) AS n, max(id), max(name), max(day), sum(amount), bool_or(active), max(category), max(note) FROM read_parquet('${file}')`,
    );
    return Number(reader.getRowObjectsJS()[0]?.n);
  } finally {
    connection.closeSync();
  }
}

const modes: Record<string, (path: string) => Promise<number>> = {
  'duckdb-parquet': duckdbParquetRows,
  floor: countNewlines,
  'csv-parse': csvParseRecords,
  parser: ownParserRecords,
  udsv: udsvRecords,
  validate: (dir) => validateRows(dir),
  'validate-one': (dir) => validateRows(dir, false),
  command: commandRows,
};

const run = modes[mode];
if (!run) throw new Error(`unknown mode ${mode}`);
const start = performance.now();
const rows = await run(target);
const seconds = (performance.now() - start) / 1000;
const maxRssMB = commandPeakMB ?? process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ rows, seconds, maxRssMB }));
