import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { visible } from '../text/visible.js';

/**
 * Where a question is drawn: the raw stderr, since the prompt library draws with escape
 * sequences of its own, which the terminal-safe streams would print as text. What it asks
 * about is made visible by the caller's question (see ask). The question is cleared once
 * answered, so that Ctrl-C leaves no half-drawn line behind.
 */
export function promptContext(ctx: Context): {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  signal: AbortSignal;
  clearPromptOnDone: boolean;
} {
  return {
    input: process.stdin,
    output: ctx.rawIO.stderr,
    signal: ctx.signal,
    clearPromptOnDone: true,
  };
}

/**
 * A prompt closed by Ctrl-C (in raw mode a byte, which the library reports as
 * ExitPromptError) or by a signal (AbortPromptError) is an interruption: exit 130 or 143.
 */
export function interruptedPrompt(error: unknown, signal: AbortSignal): unknown {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'ExitPromptError') return new InterruptedError('SIGINT');
  if (name === 'AbortPromptError') return new InterruptedError(signal.reason);
  return error;
}

/** Asks a yes/no question on the terminal; `question` may quote names, made visible here. */
export async function confirmOnTerminal(ctx: Context, question: string): Promise<boolean> {
  const { default: confirm } = await import('@inquirer/confirm');
  return confirm({ message: visible(question), default: false }, promptContext(ctx)).catch(
    (error: unknown) => {
      throw interruptedPrompt(error, ctx.signal);
    },
  );
}
