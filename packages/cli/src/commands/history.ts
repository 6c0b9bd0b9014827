import type { Command } from 'commander';
import type { Context } from '../context.js';
import { hubApi, storedToken, writeJson } from './auth-common.js';
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
  const { runHistory } = await import('../client/datasets.js');
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
