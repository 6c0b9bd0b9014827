import type { Context } from '../context.js';
import { visible } from '@data/core';

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
    input: ctx.rawIO.stdin,
    output: ctx.rawIO.stderr,
    signal: ctx.signal,
    clearPromptOnDone: true,
  };
}

/** Asks a yes/no question on the terminal; `question` may quote names, made visible here. */
export async function confirmOnTerminal(ctx: Context, question: string): Promise<boolean> {
  const { default: confirm } = await import('@inquirer/confirm');
  // Ctrl-C at it (ExitPromptError) or a signal (AbortPromptError) is exit 130 or 143: cli.ts.
  return confirm({ message: visible(question), default: false }, promptContext(ctx));
}
