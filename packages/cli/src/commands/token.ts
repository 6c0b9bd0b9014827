import { InvalidArgumentError, Option, type Command } from 'commander';
import { TOKEN_SCOPES, tokenNameProblem, UsageError, type TokenScope } from '@data/core';
import type { Context } from '../context.js';
import type { TokensDeps } from '../client/tokens.js';
import { counting } from './arguments.js';
import { requireToken, signedInDeps, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface TokenCreateOptions {
  scope: TokenScope;
  dataset?: string[] | undefined;
  expires?: number | undefined;
}

/** `--dataset owner/dataset`, as many times as wanted. */
function dataset(value: string, previous: string[] = []): string[] {
  if (!/^[^/\s]+\/[^/\s]+$/.test(value))
    throw new InvalidArgumentError('expected owner/dataset, such as ada/world-cities');
  return [...previous, value];
}

export function registerToken(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  const token = program
    .command('token')
    .summary('make, list and revoke named tokens: scoped, expiring tokens for CI and scripts');
  token
    .command('create')
    .summary('make a token and print it, once, alone on standard output')
    .argument('<name>', 'a name of your choice, to tell your tokens apart')
    .addOption(
      new Option(
        '--scope <scope>',
        'what it may do: read, publish (and read), or admin (all you may)',
      )
        .choices(TOKEN_SCOPES)
        .makeOptionMandatory(),
    )
    .option('--dataset <owner/dataset>', 'publish only to this dataset (repeatable)', dataset)
    .option(
      '--expires <days>',
      "days it lives, 1 to the hub's maximum (default 30)",
      counting(' of days'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  data token create ci --scope publish --dataset ada/world-cities --expires 90\n  data token create reader --scope read | gh secret set DATA_TOKEN',
    )
    .action(async (name: string, options: TokenCreateOptions, command: Command) => {
      setExitCode(await createToken(name, options, contextFor(command)));
    });
  token
    .command('list')
    .summary('your tokens: name, scope, datasets, made, last used, expires (never the token)')
    .action(async (_options: unknown, command: Command) => {
      setExitCode(await listTokens(contextFor(command)));
    });
  token
    .command('revoke')
    .summary('revoke one of your tokens: refused at once from then on')
    .argument('<name>', "the token's name")
    .action(async (name: string, _options: unknown, command: Command) => {
      setExitCode(await revokeToken(name, contextFor(command)));
    });
}

/** The fields of /api/tokens as `data token create` takes them, for the hub's reasons. */
const WORDS = { expires_days: '--expires', datasets: '--dataset', scope: '--scope' };

async function deps(ctx: Context): Promise<TokensDeps> {
  return signedInDeps(ctx, await requireToken(ctx), WORDS);
}

export async function createToken(
  name: string,
  options: TokenCreateOptions,
  ctx: Context,
): Promise<number> {
  const problem = tokenNameProblem(name);
  if (problem) throw new UsageError(problem);
  // What the hub would refuse of the arguments, said before anything is asked of it.
  if (options.scope === 'read' && options.dataset)
    throw new UsageError(
      'a read token reads what you may read: --dataset limits publishing, for --scope publish or admin',
    );
  const { runTokenCreate } = await import('../client/tokens.js');
  const made = await runTokenCreate(
    {
      name,
      scope: options.scope,
      ...(options.dataset ? { datasets: options.dataset } : {}),
      ...(options.expires === undefined ? {} : { expires_days: options.expires }),
    },
    await deps(ctx),
  );
  if (ctx.globals.json) {
    writeJson(ctx, made);
    return 0;
  }
  // The token alone on stdout, so that it pipes into a secret store; the rest on stderr.
  ctx.io.stdout.write(`${made.token}\n`);
  const { tokenNote } = await import('../output/tokens.js');
  ctx.io.stderr.write(tokenNote(made.record));
  return 0;
}

export async function listTokens(ctx: Context): Promise<number> {
  const { runTokenList } = await import('../client/tokens.js');
  const records = await runTokenList(await deps(ctx));
  if (ctx.globals.json) {
    writeJson(ctx, records);
    return 0;
  }
  const { renderTokens } = await import('../output/tokens.js');
  ctx.io.stdout.write(renderTokens(records, ctx.io.isStdoutTTY, ctx.colors));
  return 0;
}

export async function revokeToken(name: string, ctx: Context): Promise<number> {
  const { runTokenRevoke } = await import('../client/tokens.js');
  const result = await runTokenRevoke(name, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, result);
  else ctx.io.stdout.write(`revoked ${JSON.stringify(result.revoked)}\n`);
  return 0;
}
