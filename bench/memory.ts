/**
 * Peak resident memory while validating a 1 GB CSV with no unique constraints: only
 * key sets may grow with a table, so this must stay under 256 MB.
 */
import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { generatePackage } from './generate.ts';

const DIR = '.bench/gigabyte';
const MB = 1024 * 1024;
const csv = await generatePackage(DIR, 13_400_000, false);
const bytes = (await stat(csv)).size;
const child = spawnSync(process.execPath, ['bench/measure.ts', 'validate', DIR], {
  encoding: 'utf8',
});
if (child.status !== 0) throw new Error(child.stderr);
const result = JSON.parse(child.stdout) as { rows: number; seconds: number; maxRssMB: number };
console.log(
  `${csv}: ${(bytes / MB).toFixed(0)} MB, ${result.rows.toLocaleString('en-US')} rows, no unique constraints`,
);
console.log(
  `validated in ${result.seconds.toFixed(1)} s (${(bytes / MB / result.seconds).toFixed(1)} MB/s)`,
);
console.log(
  `peak RSS ${result.maxRssMB.toFixed(0)} MB (budget 256 MB: ${result.maxRssMB < 256 ? 'met' : 'NOT met'})`,
);
