import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { storedToken, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './index.js';

export interface GetOptions {
  target: string;
  out: string | undefined;
  force: boolean;
}

export function registerGet(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('get')
    .summary('download a dataset (or one of its files) into a folder that validates offline')
    .argument('<target>', 'owner/dataset, owner/dataset/r/<file>, or a URL')
    .option('--out <dir>', 'target folder (default: ./owner/dataset, or . for one file)')
    .option('--force', 'write into a folder that is not empty')
    .addHelpText(
      'after',
      '\nExamples:\n  data get ada/world-cities\n  data get ada/world-cities/r/0.csv\n  data get https://hub.example.org/ada/world-cities --out cities',
    )
    .action(async (target: string, options: Omit<GetOptions, 'target'>, command: Command) => {
      setExitCode(await runGet({ ...options, target }, contextFor(command)));
    });
}

export async function runGet(options: GetOptions, ctx: Context): Promise<number> {
  const { parseTarget, getDataset, getFile } = await import('../client/get.js');
  const target = parseTarget(options.target, ctx.hub().site);
  const token = await storedToken(ctx);
  const out = resolve(ctx.io.cwd, options.out ?? target.folder);
  const { getProgress } = await import('../output/get.js');
  const { startProgress } = await import('../output/spinner.js');
  const progress = await startProgress(ctx, `fetching ${options.target}`);
  const settings = {
    fetch: ctx.download,
    token,
    out,
    force: options.force || target.single,
    signal: ctx.signal,
    onEvent: getProgress(progress.update, progress.log),
  };
  const result = await (
    target.single ? getFile(target, settings) : getDataset(target, settings)
  ).finally(() => {
    progress.stop();
  });
  if (ctx.globals.json) writeJson(ctx, result);
  else ctx.io.stdout.write(`${result.folder}\n`);
  return 0;
}
