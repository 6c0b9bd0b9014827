import type { Command } from 'commander';
import type { Context } from '../context.js';
import { tokenExpiry } from '../credentials/store.js';
import { hubApi, refusedToken, requireToken, writeJson } from './auth-common.js';
import { profileOf } from '../client/api.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerWhoami(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('whoami')
    .summary('show who you are on the hub, where the token is kept and when it expires')
    .addHelpText(
      'after',
      '\nExamples:\n  data whoami\n  data whoami --json                   # username, hub, where the token is, expiry',
    )
    .action(async (_options: unknown, command: Command) => {
      setExitCode(await runWhoami(contextFor(command)));
    });
}

export async function runWhoami(ctx: Context): Promise<number> {
  const found = await requireToken(ctx);
  const profile = profileOf(await hubApi(ctx).check(found.token));
  if (!profile) throw refusedToken(ctx, found);
  const expires = tokenExpiry(found.token);
  const result = {
    username: profile.username,
    name: profile.name ?? null,
    email: profile.email ?? null,
    id: profile.id,
    hub: ctx.hub().api,
    stored: found.location,
    expires: expires?.toISOString() ?? null,
  };
  if (ctx.globals.json) {
    writeJson(ctx, result);
    return 0;
  }
  const lines = [
    `${profile.username}${profile.name ? ` (${profile.name})` : ''}`,
    `hub:      ${result.hub}`,
    `token in: ${result.stored}`,
    `expires:  ${result.expires ?? 'unknown'}`,
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
