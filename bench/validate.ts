/**
 * Validation throughput on a 1,000,000-row, 7-column typed table (about 75 MB), on one
 * worker and on two, printed with its peers on the same file: a plain read that counts
 * newlines, csv-parse, uDSV's typed parse and our parser alone; then the start-up time of
 * `data --version` and of validating a small package against a bare `node -e 0`; then the
 * same table as Parquet (written by DuckDB), validated, next to DuckDB reading every column.
 * Each figure is measured in a fresh process, the modes taken in turn (see `rounds`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { generatePackage } from './generate.ts';

const DIR = '.bench/million';
const PARQUET_DIR = '.bench/million-parquet';
const MB = 1024 * 1024;

interface Measure {
  rows: number;
  seconds: number;
  maxRssMB: number;
}

function measure(mode: string, target: string): Measure {
  const child = spawnSync(process.execPath, ['bench/measure.ts', mode, target], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`${mode} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Measure;
}

/**
 * Several runs of each measurement, each in a fresh process, taken in rounds: each round runs
 * every mode once, the first mode of the last round going last in the next. This machine's
 * speed drifts over a minute, so a mode measured while it is fast and its peer while it is
 * slow would compare the machine, not the programs.
 */
function rounds(modes: [mode: string, target: string][], count: number): Measure[][] {
  const results: Measure[][] = modes.map(() => []);
  for (let round = 0; round < count; round++)
    for (let step = 0; step < modes.length; step++) {
      const index = (round + step) % modes.length;
      const [mode, target] = modes[index] as [string, string];
      results[index]?.push(measure(mode, target));
    }
  return results;
}

const middle = (results: Measure[]): Measure =>
  [...results].sort((a, b) => a.seconds - b.seconds)[Math.floor(results.length / 2)] as Measure;

function line(label: string, bytes: number, results: Measure[]): string {
  const rates = results.map((result) => bytes / MB / result.seconds);
  const result = middle(results);
  const rate = `${(bytes / MB / result.seconds).toFixed(1).padStart(7)} MB/s`;
  const spread = `(${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)})`.padEnd(11);
  const perRow = `${Math.round(result.rows / result.seconds)
    .toLocaleString('en-US')
    .padStart(10)} rows/s`;
  const memory = `${Math.max(...results.map((each) => each.maxRssMB))
    .toFixed(0)
    .padStart(4)} MB peak`;
  return `${label.padEnd(38)} ${result.seconds.toFixed(2).padStart(5)} s ${rate} ${spread} ${perRow} ${memory}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median of 21 runs, with the spread (the fastest and slowest of the middle 11). */
function startupMs(args: string[]): { median: number; low: number; high: number } {
  // Untimed: the first run of a command writes its code cache.
  spawnSync(process.execPath, args, { stdio: 'ignore' });
  const runs: number[] = [];
  for (let i = 0; i < 21; i++) {
    const start = performance.now();
    spawnSync(process.execPath, args, { stdio: 'ignore' });
    runs.push(performance.now() - start);
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return { median: median(runs), low: sorted[5] ?? 0, high: sorted[15] ?? 0 };
}

const ms = (figure: { median: number; low: number; high: number }): string =>
  `${figure.median.toFixed(0)} ms (${figure.low.toFixed(0)}–${figure.high.toFixed(0)})`;

const csv = await generatePackage(DIR, 1_000_000, true);
const bytes = (await stat(csv)).size;
console.log(
  `${csv}: ${(bytes / MB).toFixed(1)} MB, 1,000,000 rows x 7 typed columns, primary key on id; node ${process.version}`,
);
const RUNS = 5;
// csv-parse takes seconds: one run, before the others.
const baseline = [measure('csv-parse', csv)];
const [floor, udsv, parser, one, two, command] = rounds(
  [
    ['floor', csv],
    ['udsv', csv],
    ['parser', csv],
    ['validate-one', DIR],
    ['validate', DIR],
    ['command', DIR],
  ],
  RUNS,
) as [Measure[], Measure[], Measure[], Measure[], Measure[], Measure[]];
console.log(
  `median of ${String(RUNS)} runs in rounds (slowest–fastest MB/s), peak resident memory\n`,
);
console.log(line('floor: plain read, count newlines', bytes, floor));
console.log(line('csv-parse alone (1 run)', bytes, baseline));
console.log(line('uDSV typed parse (checks nothing)', bytes, udsv));
console.log(line('our CSV parser alone (decode+parse)', bytes, parser));
console.log(line('data validate, one worker', bytes, one));
console.log(line('data validate, two workers', bytes, two));
console.log(line('bin/data validate (whole command)', bytes, command));
const rateOf = (results: Measure[]): number => bytes / MB / middle(results).seconds;
const verdict = (label: string, rate: number): string =>
  `${label} ${rate.toFixed(1)} MB/s (target >= 150: ${rate >= 150 ? 'met' : 'NOT met'}), ` +
  `${(rate / rateOf(udsv)).toFixed(2)}x uDSV's typed parse (target >= 1)`;
console.log(
  `\n${verdict('validation on two workers', rateOf(two))}, ${(rateOf(two) / rateOf(one)).toFixed(2)}x one worker`,
);
console.log(verdict('the whole command', rateOf(command)));
/** The peer's time over ours in each round: above 1 where ours was the faster. */
const paired = (ours: Measure[], peer: Measure[]): string =>
  ours.map((run, round) => ((peer[round]?.seconds ?? 0) / run.seconds).toFixed(2)).join(', ');
console.log(
  `round by round, times uDSV's rate: two workers ${paired(two, udsv)}; ` +
    `the whole command ${paired(command, udsv)}`,
);
const bare = startupMs(['-e', '0']);
const version = startupMs([join('bin', 'data'), '--version']);
const small = startupMs([join('bin', 'data'), 'validate', join('examples', 'cities')]);
console.log(
  `start-up: node -e 0 ${ms(bare)}; data --version ${ms(version)}: ${(version.median / bare.median).toFixed(2)}x (target <= 2x); ` +
    `data validate examples/cities ${ms(small)}: ${(small.median / bare.median).toFixed(2)}x (target <= 3x)`,
);

/** The benchmark table as Parquet, written by DuckDB, described by the CSV's own schema. */
async function parquetPackage(csvFile: string): Promise<string> {
  const file = join(PARQUET_DIR, 'data.parquet');
  if (existsSync(file)) return file;
  mkdirSync(PARQUET_DIR, { recursive: true });
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  await connection.run(
    `COPY (SELECT * FROM read_csv('${csvFile}', header = true)) TO '${file}' (FORMAT parquet)`,
  );
  connection.closeSync();
  const descriptor = JSON.parse(
    readFileSync(join(dirname(csvFile), 'datapackage.json'), 'utf8'),
  ) as { resources: Record<string, unknown>[] };
  const [table] = descriptor.resources;
  writeFileSync(
    join(PARQUET_DIR, 'datapackage.json'),
    JSON.stringify({ name: 'bench-parquet', resources: [{ ...table, path: 'data.parquet' }] }),
  );
  return file;
}

const parquetFile = await parquetPackage(csv);
const parquetBytes = (await stat(parquetFile)).size;
const [duckdb, parquetValidate] = rounds(
  [
    ['duckdb-parquet', parquetFile],
    ['validate', PARQUET_DIR],
  ],
  RUNS,
) as [Measure[], Measure[]];
console.log(
  `\n${parquetFile}: the same table as Parquet, written by DuckDB, ${(parquetBytes / MB).toFixed(1)} MB`,
);
console.log(line('DuckDB reads every column', parquetBytes, duckdb));
console.log(line('data validate, the Parquet table', parquetBytes, parquetValidate));
console.log(
  `validating the Parquet table takes ${(middle(parquetValidate).seconds / middle(duckdb).seconds).toFixed(1)}x DuckDB's reading, ${(middle(parquetValidate).seconds / middle(two).seconds).toFixed(2)}x validating the CSV`,
);
