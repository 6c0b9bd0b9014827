import type { Command } from 'commander';
import type { Context } from '../context.js';
import { hubApi, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerLogout(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('logout')
    .summary('revoke the stored token at the hub and forget it')
    .addHelpText(
      'after',
      '\nExamples:\n  data logout\n  data logout --api https://hub.example.org   # another hub',
    )
    .action(async (_options: unknown, command: Command) => {
      setExitCode(await runLogout(contextFor(command)));
    });
}

/** Revokes the token at the hub; a hub out of reach does not keep the token here. */
async function revoke(ctx: Context, token: string): Promise<boolean> {
  try {
    return await hubApi(ctx).logout(token);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    ctx.io.stderr.write(`warning: the hub did not revoke the token (${reason})\n`);
    return false;
  }
}

export async function runLogout(ctx: Context): Promise<number> {
  const api = ctx.hub().api;
  const stored = await ctx.credentials.stored(api);
  const revoked = stored ? await revoke(ctx, stored.token) : false;
  const removed = await ctx.credentials.delete(api);
  if (ctx.globals.json) writeJson(ctx, { hub: api, removed, revoked });
  else ctx.io.stdout.write(removed ? `Logged out of ${api}\n` : `No token was stored for ${api}\n`);
  if (ctx.io.env.DATA_TOKEN)
    ctx.io.stderr.write('note: DATA_TOKEN is still set in the environment\n');
  return 0;
}
