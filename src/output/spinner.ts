import type { Context } from '../context.js';

export interface Progress {
  readonly update: (text: string) => void;
  readonly stop: () => void;
}

const SILENT: Progress = { update: () => undefined, stop: () => undefined };

/** A spinner on stderr for people at a terminal; nothing for pipes, CI and --json. */
export async function startProgress(ctx: Context, text: string): Promise<Progress> {
  if (!ctx.io.isStderrTTY || ctx.globals.json || ctx.io.env.CI) return SILENT;
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: ctx.io.stderr, isEnabled: true }).start();
  return {
    update: (next) => {
      spinner.text = next;
    },
    stop: () => {
      spinner.stop();
    },
  };
}
