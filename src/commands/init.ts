import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Draft } from '../init/draft.js';
import { writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './index.js';

export interface InitOptions {
  dir: string;
  force: boolean;
  interactive: boolean;
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
    .addHelpText(
      'after',
      '\nEach table gets the schema validation infers (types, formats) and a primary key when a\nfield named like a key (id, code, …_id) is unique; what the whole data contradicts is\nloosened until `data validate` passes.\n\nExamples:\n  data init\n  data init my-data --interactive\n  data init my-data --json          # print the descriptor instead',
    )
    .action(
      async (
        dir: string,
        options: { force?: boolean; interactive?: boolean },
        command: Command,
      ) => {
        const ctx = contextFor(command);
        setExitCode(
          await runInit(
            { dir, force: options.force === true, interactive: options.interactive === true },
            ctx,
          ),
        );
      },
    );
}

/** Drafts, validates and loosens until the data agrees with the descriptor (a few rounds). */
async function settledDraft(
  dir: string,
  name: string,
  ctx: Context,
): Promise<{ draft: Draft; valid: boolean }> {
  const { draftPackage } = await import('../init/draft.js');
  const { loosen } = await import('../init/settle.js');
  const { validateDescriptor } = await import('../validator/index.js');
  let draft = await draftPackage(dir, name);
  for (let round = 0; round < 5; round++) {
    const report = await validateDescriptor(structuredClone(draft), dir, {
      fetch: ctx.fetch,
      limitErrors: 100,
    });
    if (report.valid) return { draft, valid: true };
    const looser = loosen(draft, report);
    if (!looser) return { draft, valid: false };
    draft = looser;
  }
  return { draft, valid: false };
}

export async function runInit(options: InitOptions, ctx: Context): Promise<number> {
  const dir = resolve(ctx.io.cwd, options.dir);
  const target = join(dir, 'datapackage.json');
  if (!existsSync(dir)) throw new UsageError(`"${options.dir}" does not exist`);
  if (existsSync(target) && !options.force && !ctx.globals.json)
    throw new UsageError(`${target} exists`, 'pass --force to replace it');
  const { nameFromFile } = await import('../validator/source.js');
  const { draft, valid } = await settledDraft(dir, nameFromFile(basename(dir)), ctx);
  const descriptor: Record<string, unknown> = options.interactive
    ? await (await import('../init/ask.js')).askAbout(draft, ctx)
    : { ...draft };
  if (ctx.globals.json) {
    writeJson(ctx, descriptor);
    return 0;
  }
  const temporary = `${target}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(descriptor, null, 2)}\n`);
  await rename(temporary, target);
  const count = (descriptor.resources as unknown[]).length;
  ctx.io.stdout.write(`wrote ${target}: ${String(count)} resource${count === 1 ? '' : 's'}\n`);
  if (!valid)
    ctx.io.stderr.write(
      'warning: the data has errors no descriptor can mend (run `data validate` to see them)\n',
    );
  return 0;
}
