import type { Context } from '../context.js';
import { terminalSafe } from '@data/core';
import { humanDuration } from './units.js';

export interface Progress {
  /** Replaces the spinner's text. */
  readonly update: (text: string) => void;
  /** Prints a line above the spinner (on stderr), or just the line without one. */
  readonly log: (line: string) => void;
  readonly stop: () => void;
}

/** How often a changed text is drawn at once rather than at the spinner's next frame. */
const REDRAW_MS = 100;

/** After this long a spinner also shows how long it has run: a step may be quiet a while. */
const SHOW_ELAPSED_MS = 1000;

/** A spinner on stderr for people at a terminal; plain lines for pipes, CI and --json. */
export async function startProgress(ctx: Context, text: string): Promise<Progress> {
  const plain: Progress = {
    update: () => undefined,
    log: (line) => ctx.globals.json || ctx.io.stderr.write(`${line}\n`),
    stop: () => undefined,
  };
  if (!ctx.io.isStderrTTY || ctx.globals.json || ctx.io.env.CI) return plain;
  const { default: ora } = await import('ora');
  // discardStdin off: ora's discarder puts the terminal in raw mode, where Ctrl-C is a byte
  // and no signal, and then never reads that byte (its listener does not start the stream),
  // so a keypress could not stop data. The terminal stays as it was, and Ctrl-C is SIGINT.
  const started = performance.now();
  const spinner = ora({
    text: terminalSafe(text),
    stream: ctx.rawIO.stderr,
    isEnabled: true,
    discardStdin: false,
    suffixText: () => {
      const elapsed = performance.now() - started;
      return elapsed < SHOW_ELAPSED_MS ? '' : `· ${humanDuration(elapsed / 1000)}`;
    },
  }).start();
  let drawn = -Infinity;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    ctx.signal.removeEventListener('abort', stop);
    spinner.stop();
  };
  // Stopped at once on Ctrl-C: the line is cleared before the command says it was
  // interrupted, and never drawn again, whatever a step still reports while it winds down.
  ctx.signal.addEventListener('abort', stop, { once: true });
  return {
    update: (next) => {
      if (stopped) return;
      spinner.text = terminalSafe(next);
      if (performance.now() - drawn < REDRAW_MS) return;
      drawn = performance.now();
      spinner.render();
    },
    // ora hooks the stream while it spins: it clears its line before a write and redraws it
    // after, so a line written here never mixes with the spinner.
    log: (line) => ctx.io.stderr.write(`${line}\n`),
    stop,
  };
}
