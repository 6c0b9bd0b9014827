import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import { confirmOnTerminal } from '../output/prompt.js';
import { hubApi, requireToken, writeJson } from './auth-common.js';
import { ownerAndName, runDelete } from '../client/datasets.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerDelete(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('delete')
    .summary('delete one of your datasets from the hub, with all its revisions')
    .argument('<dataset>', 'owner/dataset')
    .option('--yes', 'do not ask: needed where no one can answer (scripts, CI)')
    .addHelpText(
      'after',
      '\nExamples:\n  data delete ada/old-prices          # asks first\n  data delete ada/old-prices --yes    # in a script',
    )
    .action(async (dataset: string, options: { yes?: boolean }, command: Command) => {
      setExitCode(await deleteAsked(dataset, options.yes === true, contextFor(command)));
    });
}

export async function deleteAsked(target: string, yes: boolean, ctx: Context): Promise<number> {
  const { owner, name } = ownerAndName(target);
  const found = await requireToken(ctx);
  const canAsk = ctx.io.isStdinTTY && ctx.io.isStderrTTY && !ctx.globals.json;
  if (!yes && !canAsk)
    throw new UsageError(
      `deleting ${owner}/${name} needs --yes here: no one can be asked`,
      'add --yes',
    );
  if (
    !yes &&
    !(await confirmOnTerminal(
      ctx,
      `Delete ${owner}/${name} and all its revisions from ${ctx.hub().api}?`,
    ))
  ) {
    ctx.io.stderr.write('nothing deleted\n');
    return 1;
  }
  const result = await runDelete({ dataset: target }, { api: hubApi(ctx), token: found.token });
  if (ctx.globals.json) writeJson(ctx, result);
  else ctx.io.stdout.write(`deleted ${result.deleted}\n`);
  return 0;
}
