import type { Command } from 'commander';
import type { Context } from '../context.js';
import { writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './index.js';

export function registerLogout(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('logout')
    .summary('forget the token stored for the hub')
    .action(async (_options: unknown, command: Command) => {
      setExitCode(await runLogout(contextFor(command)));
    });
}

export async function runLogout(ctx: Context): Promise<number> {
  const api = ctx.hub().api;
  const removed = await ctx.credentials.delete(api);
  if (ctx.globals.json) writeJson(ctx, { hub: api, removed });
  else ctx.io.stdout.write(removed ? `Logged out of ${api}\n` : `No token was stored for ${api}\n`);
  if (ctx.io.env.DATA_TOKEN)
    ctx.io.stderr.write('note: DATA_TOKEN is still set in the environment\n');
  return 0;
}
