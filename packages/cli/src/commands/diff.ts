import { Option, type Command } from 'commander';
import type { Context } from '../context.js';
import type { DiffOptions } from '../client/diff.js';
import { positive, whole } from './arguments.js';
import { hubReader, writeJson } from './auth-common.js';
import { tokenBelongsTo } from '@data/core';
import { readsLocally } from './local-or-hub.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface DiffCommandOptions extends DiffOptions {
  format: 'text' | 'csv';
}

export function registerDiff(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('diff')
    .summary('what changed between two versions of a dataset: properties, schemas and rows')
    .argument('<a>', 'a package folder or descriptor, owner/dataset or owner/dataset@N')
    .argument('<b>', 'the same, the version to compare with a')
    .option('--limit <n>', 'rows of each kind to show per resource', whole('rows'), 10)
    .addOption(
      new Option('--format <format>', 'text, or csv: one line per changed cell')
        .choices(['text', 'csv'])
        .default('text'),
    )
    .addOption(
      new Option(
        '--key-memory <MB>',
        'memory for matching rows by key; larger tables are matched part by part from disk (default 192)',
      ).argParser(positive('megabytes')),
    )
    .addHelpText(
      'after',
      '\nRows are matched by the primary key (or, without one, whole) and compared by their\ntyped values: 1.0 and 1 in a number field are the same. Exit code 0 when nothing\nchanged, 1 when something did.\n\nExamples:\n  data diff ada/prices@3 ada/prices\n  data diff ada/prices ./prices --limit 50\n  data diff old/ new/ --json\n  data diff old/ new/ --format csv > changes.csv',
    )
    .action(
      async (
        a: string,
        b: string,
        options: { limit: number; format: 'text' | 'csv'; keyMemory?: number },
        command: Command,
      ) => {
        setExitCode(await runDiff({ a, b, ...options }, contextFor(command)));
      },
    );
}

export async function runDiff(options: DiffCommandOptions, ctx: Context): Promise<number> {
  const { unchanged } = await import('@data/core');
  const { startProgress } = await import('../output/spinner.js');
  const { diffProgress } = await import('../output/diff-progress.js');
  // Reading and matching the rows of large tables takes seconds: rows read, rate, time left.
  const heading = `comparing ${options.a} with ${options.b}`;
  const { runDiff: compare } = await import('../client/diff.js');
  const { fetch, token } = await hubReader(ctx);
  const progress = await startProgress(ctx, heading);
  const diff = await compare(options, {
    fetch,
    site: ctx.hub().site,
    signedIn: (url: string) => token !== undefined && tokenBelongsTo(url, ctx.hub()),
    signal: ctx.signal,
    isLocal: (input: string) => readsLocally(input, ctx),
    onProgress: diffProgress(heading, progress.update),
  }).finally(progress.stop);
  const { diffCsv, diffText } = await import('@data/core');
  if (ctx.globals.json) writeJson(ctx, diff);
  else if (options.format === 'csv') ctx.io.stdout.write(diffCsv(diff));
  else ctx.io.stdout.write(diffText(diff, ctx.colors));
  return unchanged(diff) ? 0 : 1;
}
