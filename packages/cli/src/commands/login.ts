import type { Command } from 'commander';
import { positive } from './arguments.js';
import type { Context } from '../context.js';
import type { InputStream } from '../output/io.js';
import { AuthError, UsageError } from '@data/core';
import { hubApi, writeJson } from './auth-common.js';
import { profileOf } from '../client/api.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface LoginOptions {
  provider: string | undefined;
  browser: boolean;
  withToken: boolean;
  timeout: number;
}

export function registerLogin(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('login')
    .summary('sign in to the hub in the browser, or with a token from stdin')
    .option('--provider <name>', 'sign-in provider, when the hub has several')
    .option(
      '--no-browser',
      'print the sign-in address instead of opening a browser (SSH, WSL, containers)',
    )
    .option('--with-token', 'read a token from standard input')
    .option('--timeout <seconds>', 'how long to wait for the browser', positive('seconds'), 300)
    .addHelpText(
      'after',
      '\nExamples:\n  data login\n  data login --no-browser              # over SSH: open the printed address anywhere\n  echo "$TOKEN" | data login --with-token',
    )
    .action(async (options: LoginOptions, command: Command) => {
      setExitCode(await runLogin(options, contextFor(command)));
    });
}

/** What standard input holds, to its end, as trimmed text. */
async function readStdin(stdin: InputStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8').trim();
}

export async function runLogin(options: LoginOptions, ctx: Context): Promise<number> {
  const api = hubApi(ctx);
  let token: string;
  if (options.withToken) {
    token = await readStdin(ctx.rawIO.stdin);
    if (!token) throw new UsageError('no token on standard input');
  } else {
    const { signInWithBrowser } = await import('../client/login.js');
    token = await signInWithBrowser({
      api,
      provider: options.provider,
      timeoutMs: options.timeout * 1000,
      signal: ctx.signal,
      show: async (url) => {
        ctx.io.stderr.write(`Sign in at:\n  ${url}\n`);
        if (!options.browser) return;
        const { default: open } = await import('open');
        await open(url).catch(() =>
          ctx.io.stderr.write('(no browser could be opened: open the address above)\n'),
        );
      },
    });
  }
  const profile = profileOf(await api.check(token));
  if (!profile) throw new AuthError('the hub did not accept this token');
  const stored = await ctx.credentials.set(api.api, { token, profile });
  if (stored.warning) ctx.io.stderr.write(`warning: ${stored.warning}\n`);
  if (ctx.globals.json)
    writeJson(ctx, { hub: api.api, username: profile.username, stored: stored.location });
  else ctx.io.stdout.write(`Logged in to ${api.api} as ${profile.username}\n`);
  return 0;
}
