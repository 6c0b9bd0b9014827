import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { HubApi } from '../client/api.js';
import { ApiError, UsageError } from '@data/core';
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
      setExitCode(await runHistory(dataset, contextFor(command)));
    });
}

/** owner/dataset split, or a usage error. */
export function ownerAndName(target: string): { owner: string; name: string } {
  const parts = target.split('/');
  const [owner, name] = parts;
  if (parts.length !== 2 || !owner || !name)
    throw new UsageError(`"${target}" is not owner/dataset`);
  return { owner, name };
}

/**
 * Calls the hub about owner/dataset by the owner's user id; an owner or a dataset the hub
 * does not have (or does not show) is "no dataset", exit 2.
 */
export async function onDataset<T>(
  ctx: Context,
  target: string,
  signedIn: boolean,
  call: (api: HubApi, ownerid: string, name: string) => Promise<T>,
): Promise<T> {
  const { owner, name } = ownerAndName(target);
  const { noSuchDataset } = await import('../client/get.js');
  const missing = noSuchDataset({ url: target, single: false, folder: target }, signedIn);
  const api = hubApi(ctx);
  const ownerid = await api.resolve(owner);
  if (!ownerid) throw missing;
  return call(api, ownerid, name).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) throw missing;
    throw error;
  });
}

export async function runHistory(target: string, ctx: Context): Promise<number> {
  const { owner, name } = ownerAndName(target);
  const token = await storedToken(ctx);
  const revisions = await onDataset(ctx, target, token !== undefined, (api, ownerid) =>
    api.revisions(ownerid, name, token),
  );
  if (ctx.globals.json) {
    writeJson(ctx, { dataset: `${owner}/${name}`, revisions });
    return 0;
  }
  const { renderRevisions } = await import('../output/datasets.js');
  ctx.io.stdout.write(renderRevisions(revisions, ctx.io.isStdoutTTY, ctx.colors));
  return 0;
}
