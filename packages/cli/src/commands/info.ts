import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { DatasetInfo } from '../client/info.js';
import { tokenBelongsTo } from '@data/core';
import { hubReader, writeJson } from './auth-common.js';
import { readsLocally } from './local-or-hub.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerInfo(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('info')
    .summary('show a dataset: title, description, resources and their first rows')
    .argument('<target>', 'owner/dataset, a local package folder or datapackage.json, or a URL')
    .addHelpText(
      'after',
      '\nExamples:\n  data info ada/world-cities\n  data info examples/cities --json',
    )
    .action(async (target: string, _options: unknown, command: Command) => {
      setExitCode(await showInfo(target, contextFor(command)));
    });
}

export async function showInfo(target: string, ctx: Context): Promise<number> {
  const { runInfo } = await import('../client/info-target.js');
  const info = await runInfo(
    { target },
    {
      cwd: ctx.io.cwd,
      isLocal: (input) => readsLocally(input, ctx),
      site: () => ctx.hub().site,
      fetch: ctx.fetch,
      hubReader: () => hubReader(ctx),
      signedIn: (url) => tokenBelongsTo(url, ctx.hub()),
      signal: ctx.signal,
    },
  );
  return printInfo(info, target, ctx);
}

async function printInfo(info: DatasetInfo, target: string, ctx: Context): Promise<number> {
  if (ctx.globals.json) {
    writeJson(ctx, info);
    return 0;
  }
  const { renderInfo, renderInfoPlain } = await import('../output/info.js');
  ctx.io.stdout.write(
    ctx.io.isStdoutTTY ? renderInfo(info, target, ctx.colors) : renderInfoPlain(info, target),
  );
  return 0;
}
