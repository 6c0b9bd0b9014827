/**
 * The benchmark table (1,000,000 rows, .bench/million) validated by `bin/data validate`
 * with and without a `pattern` constraint on its `name` column, in rounds:
 * - no pattern;
 * - `[A-Z][a-z]+ \d+`, which V8's backtracking engine runs (its linear engine takes over
 *   past 100 backtracks);
 * - `[A-Z][a-z]{1,20} \d{1,20}`, the same cells, which re2js runs (V8's linear engine
 *   refuses counted repetitions past 10);
 * - `[A-Z][a-z0-9 ]+`, a plain pattern, which V8's engine runs alone.
 * Then each engine alone on the column's cells, in ns a cell: V8's backtracking engine
 * without the fallback (what ran patterns before, measured in a process of its own, as the
 * fallback is a process-wide setting), with it, and re2js. Last, a catastrophic pattern on
 * longer and longer cells, in time linear in their length.
 */
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePackage, rowValues, SCHEMA } from './generate.ts';
import { linearPattern } from '../packages/core/dist/validator/schema/pattern.js';

const DIR = '.bench/million';
const ROUNDS = 5;
const CELLS = 1_000_000;
const V8_PATTERN = '[A-Z][a-z]+ \\d+';
const RE2_PATTERN = '[A-Z][a-z]{1,20} \\d{1,20}';
/** A plain pattern (pattern.ts's isPlainPattern): V8's engine alone, with no setting changed. */
const PLAIN_PATTERN = '[A-Z][a-z0-9 ]+';

const csv = await generatePackage(DIR, CELLS, true);

/** A package of the same data.csv whose name field has this pattern. */
function variant(label: string, pattern: string | undefined): string {
  const dir = join('.bench', `patterns-${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  linkSync(csv, join(dir, 'data.csv'));
  const fields = SCHEMA.fields.map((field) =>
    field.name === 'name' && pattern ? { ...field, constraints: { pattern } } : field,
  );
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'bench',
      resources: [{ name: 'data', path: 'data.csv', schema: { fields, primaryKey: ['id'] } }],
    }),
  );
  return dir;
}

function validateMs(dir: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['bin/data', 'validate', dir], {
    env: { ...process.env, CI: 'true' },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`validate ${dir}: ${run.stdout}${run.stderr}`);
  return performance.now() - started;
}

function spread(values: number[], unit: string, digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (index: number) => (sorted[index] ?? 0).toFixed(digits);
  return `${at(Math.floor(sorted.length / 2))} ${unit} (${at(0)} to ${at(sorted.length - 1)})`;
}

const variants: [string, string][] = [
  ['no pattern', variant('none', undefined)],
  [`pattern ${V8_PATTERN}`, variant('v8', V8_PATTERN)],
  [`pattern ${RE2_PATTERN}`, variant('re2', RE2_PATTERN)],
  [`pattern ${PLAIN_PATTERN}`, variant('plain', PLAIN_PATTERN)],
];
const times = variants.map((): number[] => []);
for (let round = 0; round < ROUNDS; round++)
  for (let index = 0; index < variants.length; index++) {
    const which = (index + round) % variants.length;
    times[which]?.push(validateMs(variants[which]?.[1] ?? ''));
  }
console.log(`bin/data validate, ${String(CELLS)} rows, median of ${String(ROUNDS)} in rounds`);
variants.forEach(([label], index) =>
  console.log(`  ${label.padEnd(42)}${spread(times[index] ?? [], 'ms')}`),
);

const names = Array.from({ length: CELLS }, (_, id) => rowValues(id + 1)[1]);
function perCell(test: (text: string) => boolean): number {
  const started = performance.now();
  let matched = 0;
  for (const name of names) if (test(name)) matched++;
  if (matched !== names.length) throw new Error('the pattern should match every name');
  return ((performance.now() - started) * 1e6) / names.length;
}

/** The engine that ran patterns before: a plain RegExp in a process with no V8 flag set. */
function beforeNs(): number {
  const script = `
    const { rowValues } = await import(${JSON.stringify(new URL('./generate.ts', import.meta.url).href)});
    const names = Array.from({ length: ${String(CELLS)} }, (_, id) => rowValues(id + 1)[1]);
    const regex = new RegExp(${JSON.stringify(`^(?:${V8_PATTERN})$`)});
    const started = performance.now();
    let matched = 0;
    for (const name of names) if (regex.test(name)) matched++;
    console.log(((performance.now() - started) * 1e6) / names.length, matched);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return Number(run.stdout.split(' ')[0]);
}

const engines: [string, () => number][] = [
  ['before: V8 backtracking, no fallback', beforeNs],
  ['V8 backtracking, linear past 100', () => perCell(linearPattern(V8_PATTERN).test)],
  ['re2js', () => perCell(linearPattern(RE2_PATTERN).test)],
  ['V8 alone, a plain pattern', () => perCell(linearPattern(PLAIN_PATTERN).test)],
];
const perEngine = engines.map((): number[] => []);
for (let round = 0; round < ROUNDS; round++)
  for (let index = 0; index < engines.length; index++) {
    const which = (index + round) % engines.length;
    perEngine[which]?.push(engines[which]?.[1]() ?? 0);
  }
console.log(`one engine on the name column's ${String(CELLS)} cells, median of ${String(ROUNDS)}`);
engines.forEach(([label], index) =>
  console.log(`  ${label.padEnd(42)}${spread(perEngine[index] ?? [], 'ns a cell', 1)}`),
);

/**
 * (a+)+$ on cells of n a's and a '!', which a backtracking engine takes 2^n steps on (a cell
 * of 40 a's, days): its time a cell grows with n, as linear time does, not doubling each a.
 */
const CATASTROPHIC = '(a+)+$';
const catastrophic = linearPattern(CATASTROPHIC);
console.log(`${CATASTROPHIC} on 10,000 cells of n a's and a '!', median of ${String(ROUNDS)}`);
for (const n of [25, 50, 100, 200]) {
  const cell = `${'a'.repeat(n)}!`;
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < 10_000; i++)
      if (catastrophic.test(cell)) throw new Error('(a+)+$ should not match');
    times.push(((performance.now() - started) * 1e6) / 10_000);
  }
  console.log(`  n = ${String(n).padEnd(38)}${spread(times, 'ns a cell')}`);
}
