import type { Command } from 'commander';
import type { Context } from '../context.js';
import { positive } from './arguments.js';
import { hubApi, refusedToken, requireToken } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';
import { showSearch } from './search.js';

export function registerList(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('list')
    .summary("list an owner's datasets: yours, with the unlisted and private ones, by default")
    .argument('[owner]', 'a user name (default: you)')
    .option('--size <n>', 'how many to show (at most 100)', positive('datasets'), 100)
    .addHelpText('after', '\nExamples:\n  data list\n  data list ada --json')
    .action(async (owner: string | undefined, options: { size: number }, command: Command) => {
      setExitCode(await runList(owner, options.size, contextFor(command)));
    });
}

export async function runList(
  owner: string | undefined,
  size: number,
  ctx: Context,
): Promise<number> {
  return showSearch({ words: '', size, owner: owner ?? (await signedInName(ctx)) }, ctx);
}

/** The signed-in user's name: kept with the token, else asked of the hub. */
async function signedInName(ctx: Context): Promise<string> {
  const found = await requireToken(ctx);
  if (found.profile?.username) return found.profile.username;
  const { profileOf } = await import('../client/api.js');
  const profile = profileOf(await hubApi(ctx).check(found.token));
  if (!profile) throw refusedToken(ctx, found);
  return profile.username;
}
