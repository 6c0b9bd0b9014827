import type { Command } from 'commander';
import { visible } from '@data/core';
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
      setExitCode(await showLogout(contextFor(command)));
    });
}

/** A word as a POSIX shell takes it: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w.,:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

export async function showLogout(ctx: Context): Promise<number> {
  const { runLogout } = await import('../client/auth.js');
  const { hub, removed, revoked, named, tokenName } = await runLogout({
    api: hubApi(ctx),
    credentials: ctx.credentials,
    onNotRevoked: (reason) =>
      ctx.io.stderr.write(`warning: the hub did not revoke the token (${reason})\n`),
  });
  if (ctx.globals.json) writeJson(ctx, { hub, removed, revoked });
  else ctx.io.stdout.write(removed ? `Logged out of ${hub}\n` : `No token was stored for ${hub}\n`);
  if (named)
    ctx.io.stderr.write(
      tokenName === undefined
        ? 'note: the named token still works elsewhere until it expires: `data token revoke NAME` revokes it\n'
        : `note: the named token ${visible(JSON.stringify(tokenName))} still works elsewhere until it expires: \`data token revoke ${visible(shellWord(tokenName))}\` revokes it\n`,
    );
  if (ctx.io.env.DATA_TOKEN)
    ctx.io.stderr.write('note: DATA_TOKEN is still set in the environment\n');
  return 0;
}
