import type { Command } from 'commander';
import { positive, whole } from './arguments.js';
import { Option } from 'commander';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Context } from '../context.js';
import type { Report } from '@data/core';
import { InputError, NetworkError, UsageError } from '@data/core';
import { EXIT } from '../exit-codes.js';
import { ERROR_TYPES as ERROR_TYPE_NAMES } from '@data/core';
import type { ContextFor, SetExitCode } from './types.js';

export interface ValidateCommandOptions {
  source: string;
  limitErrors: number;
  pickErrors: string[] | undefined;
  skipErrors: string[] | undefined;
  format: 'text' | 'json' | 'github';
  /** Likely typos of standard properties are errors. */
  strict?: boolean | undefined;
  /** The sheet of a single workbook, by name or number. */
  sheet?: string | undefined;
  /** Megabytes unique and primary keys may take in memory before they go to disk. */
  keyMemory?: number | undefined;
}

const TAGS = ['#table', '#header', '#label', '#row', '#cell', '#file'];

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function registerValidate(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('validate')
    .summary(
      'check a data package, descriptor, URL, CSV file or workbook against the Frictionless standards',
    )
    .argument(
      '[source]',
      'folder with a datapackage.json, a datapackage.json, a URL, a CSV file or a workbook',
      '.',
    )
    .addOption(
      new Option('--limit-errors <n>', 'stop after this many errors per resource (0: no limit)')
        .argParser(whole(', 0 for no limit'))
        .default(1000),
    )
    .option(
      '--pick-errors <types>',
      'report only these error types or tags (comma-separated)',
      list,
    )
    .option('--skip-errors <types>', 'leave out these error types or tags (comma-separated)', list)
    .option('--strict', 'make warnings about likely typos of standard properties errors')
    .option(
      '--sheet <name|number>',
      'for a single workbook (.xlsx, .xls, .ods): the sheet to check',
    )
    .addOption(
      new Option(
        '--key-memory <MB>',
        'memory for unique and primary keys before they are checked on disk (default 1024)',
      ).argParser(positive('megabytes')),
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['text', 'json', 'github'])
        .default('text'),
    )
    .addHelpText('after', () => errorNamesHelp())
    .addHelpText(
      'after',
      '\nExamples:\n  data validate                      # the package in this folder\n  data validate examples/cities --json\n  data validate data.csv --pick-errors type-error,#header\n  data validate book.xlsx --sheet Prices\n  data validate --format github      # annotations in GitHub Actions',
    )
    .action(
      async (source: string, raw: Omit<ValidateCommandOptions, 'source'>, command: Command) => {
        setExitCode(await runValidate({ ...raw, source }, contextFor(command)));
      },
    );
}

/** What --pick-errors and --skip-errors take, for the help. */
function errorNamesHelp(): string {
  const lines: string[] = [];
  let line = ' ';
  for (const name of ERROR_TYPE_NAMES) {
    if (line.length + name.length > 78) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${name}`;
  }
  lines.push(line);
  return `\nError tags (--pick-errors, --skip-errors):\n  ${TAGS.join(' ')}\nError types:\n${lines.join('\n')}`;
}

async function checkErrorNames(names: string[] | undefined, option: string): Promise<void> {
  if (!names) return;
  const { ERROR_TYPES, isErrorType } = await import('@data/core');
  const { didYouMean } = await import('@data/core');
  const known = [...ERROR_TYPES, ...TAGS];
  const unknown = names.filter((name) => !isErrorType(name) && !TAGS.includes(name));
  if (unknown.length === 0) return;
  const guesses = unknown.flatMap((name) => {
    const guess = didYouMean(name, known);
    return guess ? [`"${name}": did you mean ${guess}?`] : [];
  });
  throw new UsageError(
    `${option}: unknown error type or tag: ${unknown.join(', ')}${guesses.length > 0 ? ` (${guesses.join(' ')})` : ''}`,
    `tags: ${TAGS.join(' ')}\ntypes: ${ERROR_TYPES.join(' ')}`,
  );
}

/** --sheet names a sheet of one workbook; in a package each resource's dialect does. */
function checkSheetSource(source: string): void {
  if (/\.(xlsx|xlsm|xls|ods)$/i.test(new URL(source, 'file:///').pathname)) return;
  throw new UsageError(
    `--sheet is for a single workbook (.xlsx, .xls or .ods), not "${source}"`,
    'in a data package, give the resource a dialect: "dialect": {"sheetName": "Prices"}',
  );
}

export async function runValidate(options: ValidateCommandOptions, ctx: Context): Promise<number> {
  await checkErrorNames(options.pickErrors, '--pick-errors');
  await checkErrorNames(options.skipErrors, '--skip-errors');
  if (ctx.globals.json && options.format === 'github')
    throw new UsageError(
      '--json and --format github ask for two different outputs',
      'use one: --json (or --format json) for the report, --format github for annotations',
    );
  if (options.sheet !== undefined) checkSheetSource(options.source);
  const report = await validateSource(options, ctx);
  await printReport(report, options, ctx);
  return report.valid ? EXIT.ok : EXIT.invalid;
}

/**
 * Validates with progress on a terminal, in a worker for the real CLI (in this thread for a
 * small local package, which a worker would only slow); shared with publish.
 */
/** A descriptor held in memory (changed by `data publish --sheets`) and its package's folder. */
export interface HeldDescriptor {
  descriptor: Record<string, unknown>;
  dir: string;
}

export async function validateSource(
  options: Omit<ValidateCommandOptions, 'format'>,
  ctx: Context,
  held?: HeldDescriptor,
): Promise<Report> {
  const { validate, validateDescriptor, SourceNotFound, RemoteUnreachable } =
    await import('@data/core');
  const { validateIsolated } = await import('@data/core');
  const { isSmallLocal } = await import('@data/core');
  const { proxySettings } = await import('@data/core');
  const isolate = ctx.isolate && !(await isSmallLocal(held ?? options.source));
  // The hub's token goes with a URL of the hub (a private dataset's) and nowhere else; a
  // local package's remote files are read without one, which spares it the keychain.
  const url = !held && /^https?:\/\//i.test(options.source);
  const reader = url ? await (await import('./auth-common.js')).hubReader(ctx) : undefined;
  const fetch = reader?.fetch ?? ctx.fetch;
  const credential = reader?.token ? { token: reader.token, hub: ctx.hub() } : undefined;
  const run = isolate
    ? (input: string, settings: Parameters<typeof validateIsolated>[1]) =>
        validateIsolated(held ?? input, {
          ...settings,
          proxy: proxySettings(ctx.io.env),
          ...(credential ? { credential, onWithheld: reader?.withheld } : {}),
        })
    : (input: string, settings: Parameters<typeof validateIsolated>[1]) =>
        held
          ? validateDescriptor(structuredClone(held.descriptor), held.dir, {
              ...settings,
              fetch,
            })
          : validate(input, { ...settings, fetch });
  const { startProgress } = await import('../output/spinner.js');
  const progress = await startProgress(ctx, `validating ${options.source}`);
  const { validateProgress } = await import('../output/validate-progress.js');
  try {
    return await run(options.source, {
      signal: ctx.signal,
      silenceMs: ctx.silenceMs,
      limitErrors: options.limitErrors,
      ...(options.pickErrors ? { pickErrors: options.pickErrors } : {}),
      ...(options.skipErrors ? { skipErrors: options.skipErrors } : {}),
      ...(options.strict ? { strict: true } : {}),
      ...(options.sheet === undefined ? {} : { sheet: options.sheet }),
      ...(options.keyMemory === undefined
        ? {}
        : { keyMemory: Math.round(options.keyMemory * 1024 * 1024) }),
      onProgress: validateProgress(
        progress.update,
        ctx.globals.debug ? (line) => ctx.io.stderr.write(`debug: ${line}\n`) : undefined,
      ),
    });
  } catch (error) {
    if (error instanceof RemoteUnreachable)
      throw new NetworkError(
        `${error.message}; no verdict on the data`,
        error,
        'check the address and the connection, then run it again: exit 3 is an outage, not bad data',
      );
    if (error instanceof SourceNotFound) {
      throw new InputError(
        error.message,
        'give a folder with a datapackage.json, a datapackage.json path, an http(s) URL, a CSV file or a workbook (.xlsx, .xls, .ods)',
      );
    }
    throw error;
  } finally {
    progress.stop();
  }
}

export async function printReport(
  report: Report,
  options: ValidateCommandOptions,
  ctx: Context,
): Promise<void> {
  const { renderGithub, renderHuman, renderPlain } = await import('../output/report.js');
  const out = ctx.io.stdout;
  if (ctx.globals.json || options.format === 'json') {
    out.write(`${JSON.stringify(report, null, 2)}\n`);
  } else if (options.format === 'github') {
    const isFolder = statSync(options.source, { throwIfNoEntry: false })?.isDirectory() ?? false;
    const base = isFolder ? options.source : dirname(options.source);
    const { descriptorIn } = await import('@data/core');
    const inFolder = isFolder
      ? await descriptorIn(options.source).catch(() => undefined)
      : undefined;
    const descriptor = isFolder
      ? (inFolder ?? join(options.source, 'datapackage.json'))
      : options.source;
    out.write(
      renderGithub(report, descriptor, (task) =>
        task.place === '<memory>'
          ? descriptor
          : join(base, task.place.replace(/ \(multipart\)$/, '')),
      ),
    );
    ctx.io.stderr.write(
      `${(await import('../output/report.js')).verdict(report, ctx.errColors)}\n`,
    );
  } else if (ctx.io.isStdoutTTY) {
    out.write(renderHuman(report, ctx.colors));
  } else {
    out.write(renderPlain(report, ctx.colors));
  }
  if (onlyStaleSizes(report) && !ctx.globals.json && options.format !== 'json')
    ctx.io.stderr.write(
      `the files changed since their bytes and hash were written: \`data init --refresh ${options.source}\` updates them\n`,
    );
}

/** Whether every error is a file's size or hash that its descriptor has out of date. */
function onlyStaleSizes(report: Report): boolean {
  const errors = [...report.errors, ...report.tasks.flatMap((task) => task.errors)];
  return (
    errors.length > 0 &&
    errors.every((error) => error.type === 'byte-count' || error.type === 'hash-count')
  );
}
