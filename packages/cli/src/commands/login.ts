import type { Command } from 'commander';
import { positive } from './arguments.js';
import type { Context } from '../context.js';
import type { InputStream } from '../output/io.js';
import { UsageError, untilAborted, visible } from '@data/core';
import { hubApi, writeJson } from './auth-common.js';
import { tokenText } from '../credentials/token-text.js';
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
    .option('--with-token', 'read a token from standard input (asked for, hidden, on a terminal)')
    .option('--timeout <seconds>', 'how long to wait for the browser', positive('seconds'), 300)
    .addHelpText(
      'after',
      '\nExamples:\n  data login\n  data login --no-browser              # over SSH: open the printed address anywhere\n  echo "$TOKEN" | data login --with-token',
    )
    .action(async (options: LoginOptions, command: Command) => {
      setExitCode(await showLogin(options, contextFor(command)));
    });
}

/**
 * What standard input holds, to its end, as trimmed text. Ctrl-C stops the read, even where
 * nothing comes and standard input stays open.
 */
async function readStdin(stdin: InputStream, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of untilAborted(stdin, signal)) chunks.push(chunk);
  return tokenText(Buffer.concat(chunks).toString('utf8'), 'standard input');
}

/**
 * The token of `--with-token`: asked for on a terminal, with hidden input (nothing echoed,
 * nothing left on the screen), where standard input would wait silently for a pipe; read to
 * the end of standard input otherwise. The question is drawn on stderr: with standard input
 * a terminal and stderr not one (`2>file`), it could not be seen, and standard input would
 * wait silently for a token and Ctrl-D, so that is refused.
 */
async function givenToken(ctx: Context): Promise<string> {
  const { io } = ctx;
  if (!io.isStdinTTY) {
    const piped = await readStdin(ctx.rawIO.stdin, ctx.signal);
    if (!piped) throw new UsageError('no token on standard input');
    return piped;
  }
  if (!io.isStderrTTY)
    throw new UsageError(
      'login --with-token asks for the token on standard error, which is not a terminal here',
      'pipe the token in (echo "$TOKEN" | data login --with-token), or leave standard error on the terminal',
    );
  const { default: password } = await import('@inquirer/password');
  const { promptContext } = await import('../output/prompt.js');
  // Ctrl-C at it (ExitPromptError) or a signal (AbortPromptError) is exit 130 or 143: cli.ts.
  const typed = await password(
    { message: `Paste a token for ${visible(ctx.hub().api)}:` },
    promptContext(ctx),
  );
  const token = tokenText(typed, 'the question');
  if (!token) throw new UsageError('no token given', 'paste the token, then press Enter');
  return token;
}

export async function showLogin(options: LoginOptions, ctx: Context): Promise<number> {
  const api = hubApi(ctx);
  const token = options.withToken ? await givenToken(ctx) : undefined;
  const { runLogin } = await import('../client/auth.js');
  const result = await runLogin(
    { token, provider: options.provider, timeoutMs: options.timeout * 1000 },
    {
      api,
      credentials: ctx.credentials,
      signal: ctx.signal,
      show: async (url) => {
        ctx.io.stderr.write(`Sign in at:\n  ${url}\n`);
        if (!options.browser) return;
        const { default: open } = await import('open');
        await open(url).catch(() =>
          ctx.io.stderr.write('(no browser could be opened: open the address above)\n'),
        );
      },
    },
  );
  if (result.warning) ctx.io.stderr.write(`warning: ${result.warning}\n`);
  if (ctx.globals.json)
    writeJson(ctx, { hub: result.hub, username: result.username, stored: result.stored });
  else ctx.io.stdout.write(`Logged in to ${result.hub} as ${result.username}\n`);
  return 0;
}
