import type { Command } from 'commander';
import { visibleDeep } from '@data/core';
import type { Context } from '../context.js';
import { hubApi, refusedToken, requireToken, writeJson } from './auth-common.js';
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
      setExitCode(await showWhoami(contextFor(command)));
    });
}

export async function showWhoami(ctx: Context): Promise<number> {
  const found = await requireToken(ctx);
  const { runWhoami } = await import('../client/auth.js');
  const result = await runWhoami(
    { found },
    { api: hubApi(ctx), refused: (refused) => refusedToken(ctx, refused) },
  );
  if (ctx.globals.json) {
    writeJson(ctx, result);
    return 0;
  }
  // What the hub said (names, the token's), made visible before it is printed.
  const shown = visibleDeep(result);
  const lines = [
    `${shown.username}${shown.name ? ` (${shown.name})` : ''}`,
    `hub:      ${shown.hub}`,
    `token in: ${shown.stored}`,
    `expires:  ${shown.expires ?? 'unknown'}`,
  ];
  const named = shown.token;
  if (named) {
    const where = named.datasets.length > 0 ? ` on ${named.datasets.join(', ')}` : '';
    lines.push(`token:    ${JSON.stringify(named.name)} (${named.scope}${where})`);
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
