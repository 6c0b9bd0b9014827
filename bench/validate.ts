/**
 * Validation throughput on a 1,000,000-row, 7-column typed table (about 75 MB), printed
 * with its floor (a plain read that counts newlines) and csv-parse alone on the same
 * file, plus the start-up time of `data --version` against a bare `node -e 0`.
 * Each figure is measured in a fresh process.
 */
import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { generatePackage } from './generate.ts';

const DIR = '.bench/million';
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

function best(mode: string, target: string, runs = 3): Measure {
  const results = Array.from({ length: runs }, () => measure(mode, target));
  return results.reduce((a, b) => (b.seconds < a.seconds ? b : a));
}

function line(label: string, bytes: number, result: Measure): string {
  const rate = `${(bytes / MB / result.seconds).toFixed(1).padStart(7)} MB/s`;
  const perRow = `${Math.round(result.rows / result.seconds)
    .toLocaleString('en-US')
    .padStart(11)} rows/s`;
  return `${label.padEnd(36)} ${result.seconds.toFixed(2).padStart(6)} s ${rate} ${perRow}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median of 21 runs, with the spread (the fastest and slowest of the middle 11). */
function startupMs(args: string[]): { median: number; low: number; high: number } {
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
  `${csv}: ${(bytes / MB).toFixed(1)} MB, 1,000,000 rows x 7 typed columns, primary key on id; node ${process.version}; best of 3 runs\n`,
);
const floor = best('floor', csv);
const baseline = best('csv-parse', csv, 1);
const parser = best('parser', csv);
const full = best('validate', DIR);
console.log(line('floor: plain read, count newlines', bytes, floor));
console.log(line('baseline: csv-parse alone', bytes, baseline));
console.log(line('our CSV parser alone (decode+parse)', bytes, parser));
console.log(line('data validate (all checks)', bytes, full));
const rate = bytes / MB / full.seconds;
console.log(
  `\nvalidation ${rate.toFixed(1)} MB/s (target >= 60: ${rate >= 60 ? 'met' : 'NOT met'}), ` +
    `${(rate / (bytes / MB / baseline.seconds)).toFixed(1)}x csv-parse alone, ` +
    `${((floor.seconds / full.seconds) * 100).toFixed(0)}% of the plain-read floor; peak RSS ${full.maxRssMB.toFixed(0)} MB`,
);
const bare = startupMs(['-e', '0']);
const version = startupMs([join('bin', 'data'), '--version']);
const small = startupMs([join('bin', 'data'), 'validate', join('examples', 'cities')]);
console.log(
  `start-up: node -e 0 ${ms(bare)}; data --version ${ms(version)}: ${(version.median / bare.median).toFixed(2)}x (target <= 2x); ` +
    `data validate examples/cities ${ms(small)}: ${(small.median / bare.median).toFixed(2)}x (target <= 3x)`,
);
