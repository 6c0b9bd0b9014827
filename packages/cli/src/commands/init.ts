import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import type { DraftNotes } from '../init/draft.js';
import type { SettledDraft } from '../client/init.js';
import type { InitQuestions } from '../init/ask.js';
import { visible } from '@data/core';
import { counted } from '@data/core';
import type { Package, Report } from '@data/core';
import { writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface InitOptions {
  dir: string;
  force: boolean;
  interactive: boolean;
  refresh?: boolean;
  yaml?: boolean;
}

export function registerInit(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('init')
    .summary("describe a folder's data files in a datapackage.json that validates")
    .argument('[dir]', 'the folder', '.')
    .option('--force', 'replace a datapackage.json that is there')
    .option('--interactive', 'ask for the name, title and licence, and about each resource')
    .option('--yaml', 'write datapackage.yaml instead of datapackage.json')
    .option(
      '--refresh',
      'update the bytes and hash of an existing descriptor to its files, and nothing else',
    )
    .addHelpText(
      'after',
      '\nEach table gets the schema validation infers (types, formats) and a primary key when a\nfield named like a key (id, code, …_id) is unique; what the whole data contradicts is\nloosened until `data validate` passes.\n\nExamples:\n  data init\n  data init my-data --interactive\n  data init my-data --json          # print the descriptor instead',
    )
    .action(
      async (
        dir: string,
        options: { force?: boolean; interactive?: boolean; refresh?: boolean; yaml?: boolean },
        command: Command,
      ) => {
        const ctx = contextFor(command);
        setExitCode(
          await runInit(
            {
              dir,
              force: options.force === true,
              interactive: options.interactive === true,
              refresh: options.refresh === true,
              yaml: options.yaml === true,
            },
            ctx,
          ),
        );
      },
    );
}

/** The draft of client/init.ts, with its progress and what it found told on stderr. */
async function settledDraft(dir: string, name: string, ctx: Context): Promise<SettledDraft> {
  const { draftDescriptor } = await import('../client/init.js');
  const { startProgress } = await import('../output/spinner.js');
  const { validateProgress } = await import('../output/validate-progress.js');
  const progress = await startProgress(ctx, `reading ${dir}`);
  const validating = validateProgress(
    progress.update,
    ctx.globals.debug ? (line) => ctx.io.stderr.write(`debug: ${line}\n`) : undefined,
  );
  try {
    return await draftDescriptor(dir, name, {
      fetch: ctx.fetch,
      signal: ctx.signal,
      onEvent: (event) => {
        if (event.type === 'reading')
          progress.update(
            `reading ${event.path} (${String(event.index + 1)}/${String(event.total)})`,
          );
        else if (event.type === 'drafted') printNotes(event.notes, ctx);
        else validating(event.event);
      },
    });
  } finally {
    progress.stop();
  }
}

/** The files left out of the draft and the columns renamed in it. */
function printNotes(notes: DraftNotes, ctx: Context): void {
  for (const { path, reason } of notes.leftOut)
    ctx.io.stderr.write(`warning: left out ${visible(path)}: ${visible(reason)}\n`);
  for (const { path, label, field } of notes.renamed)
    ctx.io.stderr.write(
      `note: ${visible(path)} names the column "${visible(label)}" twice: the second is field "${visible(field)}", and its header row is read as a comment row\n`,
    );
}

/** The questions of --interactive, drawn on the terminal (on stderr, answered on stdin). */
async function terminalQuestions(ctx: Context): Promise<InitQuestions> {
  const { default: input } = await import('@inquirer/input');
  const { default: select } = await import('@inquirer/select');
  const { default: confirm } = await import('@inquirer/confirm');
  const { promptContext } = await import('../output/prompt.js');
  const context = promptContext(ctx);
  return {
    input: (question) => input(question, context),
    select: (question) => select(question, context),
    confirm: (question) => confirm(question, context),
  };
}

/** The errors no descriptor can mend, each naming its resource, row and field. */
function remainingErrors(report: Report): string[] {
  const lines = report.errors.map((error) => `  ${error.message}`);
  for (const task of report.tasks)
    for (const error of task.errors) {
      const where = [
        `resource "${task.name}"`,
        error.rowNumber === undefined ? undefined : `row ${String(error.rowNumber)}`,
        error.fieldName ? `field "${error.fieldName}"` : undefined,
      ].filter((part) => part !== undefined);
      lines.push(`  ${where.join(', ')}: ${error.message}`);
    }
  return lines.map((line) => visible(line));
}

/** `--refresh`: the bytes and hash of the descriptor that is there, brought up to date. */
async function runRefresh(options: InitOptions, ctx: Context): Promise<number> {
  if (options.force || options.interactive)
    throw new UsageError(
      '--refresh changes an existing descriptor: leave out --force and --interactive',
    );
  const { isDescriptorPath, packageDescriptor } = await import('@data/core');
  const given = resolve(ctx.io.cwd, options.dir);
  if (!existsSync(given)) throw new UsageError(`"${options.dir}" does not exist`);
  const file = isDescriptorPath(given)
    ? given
    : await packageDescriptor(given, (message, missing) =>
        missing
          ? new UsageError(
              `"${options.dir}" has no descriptor to refresh`,
              'describe the folder first with `data init`',
            )
          : new UsageError(message),
      );
  const { refreshSizes } = await import('../client/init.js');
  const changes = await refreshSizes(file);
  if (ctx.globals.json) {
    writeJson(ctx, { descriptor: file, changed: changes });
    return 0;
  }
  if (changes.length === 0) ctx.io.stdout.write(`${file}: every bytes and hash is up to date\n`);
  for (const change of changes)
    ctx.io.stdout.write(
      `${file}: resource "${change.resource}" ${change.property} ${String(change.from)} → ${String(change.to)}\n`,
    );
  return 0;
}

export async function runInit(options: InitOptions, ctx: Context): Promise<number> {
  if (options.refresh) return runRefresh(options, ctx);
  const dir = resolve(ctx.io.cwd, options.dir);
  const target = join(dir, options.yaml ? 'datapackage.yaml' : 'datapackage.json');
  if (!existsSync(dir)) throw new UsageError(`"${options.dir}" does not exist`);
  if (existsSync(target) && !options.force && !ctx.globals.json)
    throw new UsageError(`${target} exists`, 'pass --force to replace it');
  // Two descriptors in one folder leave every command asking which one is meant.
  const { DESCRIPTOR_NAMES } = await import('@data/core');
  const other = DESCRIPTOR_NAMES.map((name) => join(dir, name)).find(
    (path) => path !== target && existsSync(path),
  );
  if (other && !ctx.globals.json)
    throw new UsageError(
      `${other} describes this folder already`,
      'remove it first, or refresh it with `data init --refresh`',
    );
  // The questions are drawn on stderr and answered on stdin: both must be the terminal, or
  // they would wait unseen (`2>file`) or read a pipe.
  if (options.interactive && !(ctx.io.isStdinTTY && ctx.io.isStderrTTY))
    throw new UsageError(
      '--interactive asks its questions on the terminal: standard input and standard error must both be one',
      'run it in a terminal without redirecting them, or leave out --interactive',
    );
  const { nameFromFile } = await import('@data/core');
  const { draft, report } = await settledDraft(dir, nameFromFile(basename(dir)), ctx);
  const descriptor: Package = options.interactive
    ? await (await import('../init/ask.js')).askAbout(draft, await terminalQuestions(ctx))
    : { ...draft };
  if (ctx.globals.json) {
    writeJson(ctx, descriptor);
    return 0;
  }
  const { writeDescriptor } = await import('../client/init.js');
  await writeDescriptor(target, descriptor, options.yaml === true, ctx.signal);
  const count = descriptor.resources.length;
  ctx.io.stdout.write(`wrote ${target}: ${counted(count, 'resource')}\n`);
  if (!report.valid) {
    const lines = remainingErrors(report);
    ctx.io.stderr.write(
      `warning: the data has errors no descriptor can mend (\`data validate\` shows them all):\n${lines.slice(0, 10).join('\n')}\n`,
    );
  }
  return 0;
}
