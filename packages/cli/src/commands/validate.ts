import type { Command } from 'commander';
import { positive, whole } from './arguments.js';
import { Option } from 'commander';
import { join } from 'node:path';
import type { Context } from '../context.js';
import type { Report } from '@data/core';
import { AuthError, NetworkError, UsageError } from '@data/core';
import { EXIT } from '../exit-codes.js';
import { ERROR_TYPES as ERROR_TYPE_NAMES } from '@data/core';
import type { ContextFor, SetExitCode } from './types.js';
import type { HeldDescriptor, ValidationOptions } from '../client/validate.js';

export interface ValidateCommandOptions extends ValidationOptions {
  format: 'text' | 'json' | 'github';
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
  const report = await validateWithProgress(options, ctx);
  await printReport(report, options, ctx);
  return report.valid ? EXIT.ok : EXIT.invalid;
}

/**
 * The validation of the use case (client/validate.ts), with progress on a terminal; shared
 * with publish, which may hold the descriptor in memory.
 */
export async function validateWithProgress(
  options: ValidationOptions,
  ctx: Context,
  held?: HeldDescriptor,
): Promise<Report> {
  const { RemoteUnreachable, proxySettings } = await import('@data/core');
  const { validateSource } = await import('../client/validate.js');
  const { startProgress } = await import('../output/spinner.js');
  const { validateProgress } = await import('../output/validate-progress.js');
  const progress = await startProgress(ctx, `validating ${options.source}`);
  try {
    return await validateSource(
      options,
      {
        isolate: ctx.isolate,
        fetch: ctx.fetch,
        hubReading: async () => {
          const reader = await (await import('./auth-common.js')).hubReader(ctx);
          return {
            fetch: reader.fetch,
            credential: reader.token ? { token: reader.token, hub: ctx.hub() } : undefined,
            withheld: reader.withheld,
          };
        },
        proxy: proxySettings(ctx.io.env),
        signal: ctx.signal,
        silenceMs: ctx.silenceMs,
        onProgress: validateProgress(
          progress.update,
          ctx.globals.debug ? (line) => ctx.io.stderr.write(`debug: ${line}\n`) : undefined,
        ),
      },
      held,
    );
  } catch (error) {
    // The hub refused the token a read carried (a 401, in this thread or the worker's).
    if (error instanceof AuthError)
      throw (await import('./auth-common.js')).refusalOf(ctx) ?? error;
    if (error instanceof RemoteUnreachable)
      throw new NetworkError(
        `${error.message}; no verdict on the data`,
        error,
        'check the address and the connection, then run it again: exit 3 is an outage, not bad data',
      );
    throw error;
  } finally {
    progress.stop();
  }
}

export async function printReport(
  report: Report,
  options: Pick<ValidateCommandOptions, 'source' | 'format'>,
  ctx: Context,
): Promise<void> {
  const { renderGithub, renderHuman, renderPlain, verdict } = await import('../output/report.js');
  const { annotationPlaces, onlyStaleSizes } = await import('../client/validate.js');
  const out = ctx.io.stdout;
  if (ctx.globals.json || options.format === 'json') {
    out.write(`${JSON.stringify(report, null, 2)}\n`);
  } else if (options.format === 'github') {
    const { descriptor, base } = await annotationPlaces(options.source);
    out.write(
      renderGithub(report, descriptor, (task) =>
        task.place === '<memory>'
          ? descriptor
          : join(base, task.place.replace(/ \(multipart\)$/, '')),
      ),
    );
    ctx.io.stderr.write(`${verdict(report, ctx.errColors)}\n`);
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
