import { Option, type Command } from 'commander';
import { GET_FORMATS, type GetFormat } from '../client/formats.js';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import { positive } from './arguments.js';
import { tokenBelongsTo } from '@data/core';
import { hubReader, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface GetOptions {
  target: string;
  out: string | undefined;
  force: boolean;
  revision?: number | undefined;
  include?: string[] | undefined;
  exclude?: string[] | undefined;
  format?: GetFormat | undefined;
  zip?: boolean | undefined;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerGet(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('get')
    .summary('download a dataset (or one of its files) into a folder that validates offline')
    .argument('<target>', 'owner/dataset[@N], owner/dataset[@N]/r/<file>, or a URL')
    .option('--out <dir>', 'target folder (default: ./owner/dataset, or . for one file)')
    .option('--force', 'write into a folder that is not empty, or replace a file that differs')
    .option(
      '--revision <n>',
      'a revision of the dataset, as owner/dataset@N (default: the published one)',
      positive('revision'),
    )
    .option('--include <glob>', 'only the files whose path matches (repeatable)', collect)
    .option('--exclude <glob>', 'leave out the files whose path matches (repeatable)', collect)
    .addOption(
      new Option(
        '--format <format>',
        'the tables as uploaded, or the copies the hub makes of them in CSV, JSON or Parquet',
      )
        .choices(GET_FORMATS)
        .default('original'),
    )
    .option('--zip', 'download the zip of the whole dataset the hub made, as <dataset>.zip')
    .addHelpText(
      'after',
      '\nExamples:\n  data get ada/world-cities\n  data get ada/world-cities@3\n  data get ada/world-cities --format csv\n  data get ada/world-cities --format parquet\n  data get ada/world-cities --zip\n  data get ada/world-cities --include "data/*.csv" --exclude "**/big*"\n  data get ada/world-cities/r/0.csv\n  data get https://hub.example.org/ada/world-cities --out cities',
    )
    .action(async (target: string, options: Omit<GetOptions, 'target'>, command: Command) => {
      setExitCode(await runGet({ ...options, target }, contextFor(command)));
    });
}

export async function runGet(options: GetOptions, ctx: Context): Promise<number> {
  const { parseTarget, atRevision, getDataset, getFile, getZip } = await import('../client/get.js');
  // A revision is read at its own address, where the descriptor's relative paths stay in it.
  const target = atRevision(parseTarget(options.target, ctx.hub().site), options.revision);
  if (target.single && (options.zip || (options.format ?? 'original') !== 'original'))
    throw new UsageError(
      '--zip and --format are for a whole dataset, not one file',
      'name the copy you want instead: owner/dataset/r/<name>.csv, .json or .parquet',
    );
  if (options.zip && (options.format ?? 'original') !== 'original')
    throw new UsageError('--zip holds every format already: leave out --format');
  const { fetch, token } = await hubReader(ctx, ctx.download);
  const out = resolve(ctx.io.cwd, options.out ?? (options.zip ? '.' : target.folder));
  const { getProgress } = await import('../output/get.js');
  const { startProgress } = await import('../output/spinner.js');
  const progress = await startProgress(ctx, `fetching ${options.target}`);
  const settings = {
    fetch,
    signedIn: token !== undefined && tokenBelongsTo(target.url, ctx.hub()),
    out,
    force: options.force,
    include: options.include,
    exclude: options.exclude,
    format: options.format,
    signal: ctx.signal,
    onEvent: getProgress(progress.update, progress.log),
  };
  const result = await (
    target.single
      ? getFile(target, settings)
      : options.zip
        ? getZip(target, settings)
        : getDataset(target, settings)
  ).finally(() => {
    progress.stop();
  });
  if (ctx.globals.json) writeJson(ctx, result);
  else ctx.io.stdout.write(`${result.folder}\n`);
  return 0;
}
