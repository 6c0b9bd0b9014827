/**
 * `data diff` of the 1,000,000-row benchmark table against a copy with 1% of its rows
 * changed, 0.5% added and 0.5% removed, next to `data validate` of one side, in rounds
 * (each command in a fresh process, their order turned each round), with peak memory.
 */
import { spawnSync } from 'node:child_process';
import { changedCopy, generatePackage } from './generate.ts';

const ROWS = Number(process.env.BENCH_DIFF_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_DIFF_ROUNDS ?? 3);
const A = `.bench/diff-${String(ROWS)}-a`;
const B = `.bench/diff-${String(ROWS)}-b`;

interface Run {
  seconds: number;
  peakMb: number;
  stdout: string;
}

function timed(args: string[], expected: number[]): Run {
  const started = performance.now();
  const child = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, 'bin/data', ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  if (!expected.includes(child.status ?? -1))
    throw new Error(`data ${args.join(' ')} exited ${String(child.status)}: ${child.stderr}`);
  return {
    seconds,
    peakMb: Number(child.stderr.trim().split('\n').pop()) / 1024,
    stdout: child.stdout,
  };
}

await generatePackage(A, ROWS, true);
await changedCopy(A, B, ROWS);
const diff: Run[] = [];
const validate: Run[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const steps = [
    () => {
      const run = timed(['--json', 'diff', A, B, '--limit', '0'], [1]);
      diff.push(run);
    },
    () => validate.push(timed(['validate', A], [0])),
  ];
  if (round % 2 === 1) steps.reverse();
  for (const step of steps) step();
}
const rows = (JSON.parse(diff[0]?.stdout ?? '{}') as { resources: { rows: object }[] }).resources[0]
  ?.rows;
const summary = JSON.stringify(rows);
const middle = (runs: Run[]) =>
  [...runs].sort((x, y) => x.seconds - y.seconds)[Math.floor(runs.length / 2)] as Run;
const spread = (runs: Run[]) =>
  `${Math.min(...runs.map((run) => run.seconds)).toFixed(1)}–${Math.max(...runs.map((run) => run.seconds)).toFixed(1)} s`;
const peak = (runs: Run[]) => Math.max(...runs.map((run) => run.peakMb)).toFixed(0);
console.log(
  `${ROWS.toLocaleString('en-US')} rows against 1% changed, 0.5% added, 0.5% removed: ${summary}`,
);
console.log(
  `data diff      ${middle(diff).seconds.toFixed(1)} s (${spread(diff)}), ${peak(diff)} MB peak`,
);
console.log(
  `data validate  ${middle(validate).seconds.toFixed(1)} s (${spread(validate)}), ${peak(validate)} MB peak`,
);
console.log(
  `diff / validate: ${(middle(diff).seconds / middle(validate).seconds).toFixed(2)}x (target <= 3x)`,
);
