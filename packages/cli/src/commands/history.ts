import type { Command } from 'commander';
import type { Context } from '../context.js';
import { hubApi, storedToken, writeJson } from './auth-common.js';
import { ownerAndName, runHistory } from '../client/datasets.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerHistory(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('history')
    .summary("a dataset's revisions: state, findability and date of each")
    .argument('<dataset>', 'owner/dataset')
    .addHelpText(
      'after',
      '\nExamples:\n  data history ada/world-cities\n  data history ada/world-cities --json',
    )
    .action(async (dataset: string, _options: unknown, command: Command) => {
      setExitCode(await showHistory(dataset, contextFor(command)));
    });
}

export async function showHistory(dataset: string, ctx: Context): Promise<number> {
  // The argument is checked before the hub's address and the token are read, as delete does.
  ownerAndName(dataset);
  const history = await runHistory(
    { dataset },
    { api: hubApi(ctx), token: await storedToken(ctx) },
  );
  if (ctx.globals.json) {
    writeJson(ctx, history);
    return 0;
  }
  const { renderRevisions } = await import('../output/datasets.js');
  ctx.io.stdout.write(renderRevisions(history.revisions, ctx.io.isStdoutTTY, ctx.colors));
  return 0;
}
