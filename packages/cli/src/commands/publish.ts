import type { Command } from 'commander';
import { positive } from './arguments.js';
import { Option } from 'commander';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { carryingToken } from '@data/core';
import { hubApi, refusedToken, requireToken, writeJson } from './auth-common.js';
import { profileOf } from '../client/api.js';
import type { ContextFor, SetExitCode } from './types.js';
import { printReport, validateSource } from './validate.js';
import type { Findability, PublishSource } from '../client/publish.js';
import type { Found } from '../credentials/store.js';
import type { Report } from '@data/core';
import type { ResolvedSource } from '../client/publish-source.js';
import type { Draft } from '../init/draft.js';

export interface PublishCommandOptions {
  path: string;
  name?: string | undefined;
  findability: Findability;
  wait: boolean;
  force?: boolean | undefined;
  timeout: number;
  sheets?: string | undefined;
  dryRun?: boolean | undefined;
}

export function registerPublish(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('publish')
    .alias('push')
    .summary('validate a package, upload its files and publish it on the hub')
    .argument(
      '[path]',
      'a folder holding a datapackage.json, a descriptor, or a single data file',
      '.',
    )
    .option(
      '--name <name>',
      'the dataset name for a single data file (default: from the file name)',
    )
    .addOption(
      new Option('--findability <who>', 'who can find and read it')
        .choices(['published', 'unlisted', 'private'])
        .default('published'),
    )
    .option(
      '--sheets <which>',
      'for workbooks: all, or sheet numbers or names, comma-separated, each a table (default: the first sheet, or the one the dialect names)',
    )
    .option('--no-wait', 'return once the hub has the package, without waiting for publication')
    .option('--force', 'make a new revision even when nothing changed since the published one')
    .option(
      '--dry-run',
      'validate, then show what would change against the published revision, and upload nothing',
    )
    .option('--timeout <minutes>', 'how long to wait for publication', positive('minutes'), 20)
    .addHelpText(
      'after',
      '\nExamples:\n  data publish                         # the package in this folder\n  data push examples/cities --findability unlisted\n  data publish prices.csv --name prices-2026   # one file, as a one-resource package\n  data publish book.xlsx --sheets all  # each sheet a table\n  DATA_TOKEN=… data publish --json     # in CI',
    )
    .action(
      async (path: string, options: Omit<PublishCommandOptions, 'path'>, command: Command) => {
        setExitCode(await runPublish({ ...options, path }, contextFor(command)));
      },
    );
}

export async function runPublish(
  options: PublishCommandOptions,
  ctx: Context,
  pollMs?: number,
): Promise<number> {
  const found = await requireToken(ctx);
  const { resolvePublishSource } = await import('../client/publish-source.js');
  const source = await resolvePublishSource(options.path, options.name);
  try {
    if (options.sheets !== undefined) {
      const { chooseSheets, parseSheets } = await import('../client/sheets.js');
      source.descriptor = await chooseSheets(
        source.descriptor,
        source.dir,
        parseSheets(options.sheets),
      );
    }
    return await validateAndPublish(options, source, found, ctx, pollMs);
  } finally {
    await source.cleanup();
  }
}

async function validateAndPublish(
  options: PublishCommandOptions,
  source: ResolvedSource,
  found: Found,
  ctx: Context,
  pollMs: number | undefined,
): Promise<number> {
  const check = {
    source: options.path,
    limitErrors: 1000,
    pickErrors: undefined,
    skipErrors: undefined,
    format: 'text' as const,
  };
  const report = await validatePublished(options, source, check, ctx);
  if (!report.valid) {
    ctx.io.stderr.write('error: the package is invalid; nothing was uploaded\n');
    await printReport(report, check, ctx);
    return EXIT.invalid;
  }
  const api = hubApi(ctx);
  const profile = profileOf(await api.check(found.token));
  if (!profile) throw refusedToken(ctx, found);
  if (options.dryRun) return dryRun(options, source, report, profile.username, found.token, ctx);
  const { publishPackage } = await import('../client/publish.js');
  const { publishProgress, publishSummary } = await import('../output/publish.js');
  const { startProgress } = await import('../output/spinner.js');
  const progress = await startProgress(ctx, 'publishing');
  try {
    const result = await publishPackage({
      source,
      api,
      fetch: ctx.fetch,
      site: ctx.hub().site,
      token: found.token,
      profile,
      findability: options.findability,
      wait: options.wait,
      force: options.force === true,
      timeoutMs: options.timeout * 60_000,
      ...(pollMs !== undefined ? { pollMs } : {}),
      signal: ctx.signal,
      onEvent: publishProgress(progress.update, progress.log),
    });
    progress.stop();
    if (ctx.globals.json) {
      const { status, ...rest } = result;
      writeJson(ctx, {
        ...rest,
        pipelines: status?.pipelines ?? null,
        errorLog: status?.error_log ?? [],
      });
    } else ctx.io.stdout.write(publishSummary(result, ctx.colors));
    return result.state === 'FAILED' ? EXIT.invalid : EXIT.ok;
  } finally {
    progress.stop();
  }
}

/**
 * The validation that decides whether to publish. A single data file's inferred schema is
 * loosened until the whole file validates, as `data init` does (its first rows may suggest
 * integers that a later row contradicts); sheets chosen on the command line, like that
 * schema, are in the descriptor held here, not in a file.
 */
async function validatePublished(
  options: PublishCommandOptions,
  source: ResolvedSource,
  check: Parameters<typeof validateSource>[0],
  ctx: Context,
): Promise<Report> {
  if (options.sheets !== undefined)
    return validateSource(check, ctx, { descriptor: source.descriptor, dir: source.dir });
  // A file that is no table is judged as `data validate` judges it (a PDF alone is no package).
  if (!source.inferred || !describesTable(source.descriptor)) return validateSource(check, ctx);
  const { settleWith } = await import('../init/settle.js');
  const { replaceInferred } = await import('../client/publish-source.js');
  const settled = await settleWith(
    source.descriptor as unknown as Draft,
    (draft) =>
      validateSource(check, ctx, {
        descriptor: draft as unknown as Record<string, unknown>,
        dir: source.dir,
      }),
    ctx.signal,
  );
  await replaceInferred(source, settled.draft as unknown as Record<string, unknown>);
  return settled.report;
}

function describesTable(descriptor: Record<string, unknown>): boolean {
  const [resource] = Array.isArray(descriptor.resources) ? (descriptor.resources as unknown[]) : [];
  return typeof resource === 'object' && resource !== null && 'schema' in resource;
}

/**
 * What publishing would change, against the revision the hub has published: nothing is
 * uploaded. A dataset not published yet is all new.
 */
async function dryRun(
  options: PublishCommandOptions,
  source: PublishSource,
  report: Report,
  owner: string,
  token: string,
  ctx: Context,
): Promise<number> {
  const { diffSide, folderSide } = await import('@data/core');
  const { diffPackages } = await import('@data/core');
  const { diffText } = await import('@data/core');
  const { AuthError } = await import('@data/core');
  const dataset = `${owner}/${String(source.descriptor.name)}`;
  const local = folderSide(options.path, source.descriptor, source.dir);
  const published = await diffSide(dataset, {
    fetch: carryingToken(ctx.fetch, ctx.hub(), token),
    site: ctx.hub().site,
    signedIn: () => true,
    signal: ctx.signal,
    isLocal: () => false,
  }).catch((error: unknown) => {
    if (error instanceof AuthError) return undefined;
    throw error;
  });
  if (!published) {
    const { plannedResources } = await import('../client/publish.js');
    const resources = await plannedResources(source, report);
    if (ctx.globals.json) writeJson(ctx, { dataset, published: false, diff: null, resources });
    else {
      const { newDatasetText } = await import('../output/publish.js');
      ctx.io.stdout.write(newDatasetText(dataset, resources, ctx.colors));
    }
    return EXIT.ok;
  }
  const diff = await diffPackages(published, local, { limit: 10, signal: ctx.signal });
  if (ctx.globals.json) writeJson(ctx, { dataset, published: true, diff });
  else ctx.io.stdout.write(`${diffText(diff, ctx.colors)}nothing was uploaded (--dry-run)\n`);
  return EXIT.ok;
}
