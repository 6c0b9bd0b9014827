import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { SearchOptions } from '../client/datasets.js';
import { positive } from './arguments.js';
import { hubApi, storedToken, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerSearch(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('search')
    .summary('find datasets on the hub by words in their name, title or description')
    .argument('[words...]', 'words to look for (none: the newest datasets)')
    .option('--size <n>', 'how many to show (at most 100)', positive('datasets'), 20)
    .addHelpText(
      'after',
      '\nExamples:\n  data search cities\n  data search "air quality" --size 50 --json',
    )
    .action(async (words: string[], options: { size: number }, command: Command) => {
      setExitCode(
        await showSearch({ words: words.join(' '), size: options.size }, contextFor(command)),
      );
    });
}

/** Searches, or lists one owner's datasets (`data list`), and shows what was found. */
export async function showSearch(options: SearchOptions, ctx: Context): Promise<number> {
  const { runSearch } = await import('../client/datasets.js');
  const { results, total } = await runSearch(options, {
    api: hubApi(ctx),
    token: await storedToken(ctx),
  });
  if (ctx.globals.json) {
    writeJson(ctx, {
      total,
      datasets: results.map((result) => ({
        owner: result.datahub.owner,
        name: result.name,
        title: result.title,
        findability: result.datahub.findability,
        revision: result.datahub.stats?.revision ?? null,
      })),
    });
    return 0;
  }
  const { renderDatasets } = await import('../output/datasets.js');
  ctx.io.stdout.write(renderDatasets(results, total, ctx.io.isStdoutTTY, ctx.colors));
  return 0;
}
