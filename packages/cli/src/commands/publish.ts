import type { Command } from 'commander';
import { positive } from './arguments.js';
import { Option } from 'commander';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { carryingToken } from '@data/core';
import { hubApi, refusedToken, writeJson } from './auth-common.js';
import { profileOf } from '../client/api.js';
import type { ContextFor, SetExitCode } from './types.js';
import { printReport, validateWithProgress } from './validate.js';
import type { Findability, PublishSource } from '../client/publish.js';
import type { Found } from '../credentials/store.js';
import type { Report } from '@data/core';
import type { ResolvedSource } from '../client/publish-source.js';
import type { OrgsDeps } from '../client/orgs.js';

export interface PublishCommandOptions {
  path: string;
  name?: string | undefined;
  findability: Findability;
  wait: boolean;
  force?: boolean | undefined;
  timeout: number;
  sheets?: string | undefined;
  dryRun?: boolean | undefined;
  /** An organisation to publish under, rather than the signed-in user. */
  owner?: string | undefined;
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
    .option(
      '--owner <org>',
      'publish under an organisation you are a maintainer or admin of (default: yourself)',
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
  // The path and the name are checked before the hub is asked anything (a path that is not
  // there says so), the credential before any data file is read (no token: exit 4 at once).
  const { locatePublishSource } = await import('../client/publish-source.js');
  const located = await locatePublishSource(options.path, options.name, options.sheets);
  // In CI with no token: trusted publishing (commands/trusted.ts) for this dataset.
  const { publishCredential } = await import('./trusted.js');
  const owner = options.owner?.toLowerCase();
  const name = located.name;
  const found = await publishCredential(ctx, owner && name ? `${owner}/${name}` : name);
  const source = await located.open();
  try {
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
  const check = { source: options.path, limitErrors: 1000, format: 'text' as const };
  const { validateForPublish } = await import('../client/publish-source.js');
  const report = await validateForPublish(
    source,
    options.sheets !== undefined,
    (held) => validateWithProgress(check, ctx, held),
    ctx.signal,
  );
  if (!report.valid) {
    ctx.io.stderr.write('error: the package is invalid; nothing was uploaded\n');
    await printReport(report, check, ctx);
    return EXIT.invalid;
  }
  const api = hubApi(ctx);
  const signedIn = profileOf(await api.check(found.token));
  if (!signedIn) throw refusedToken(ctx, found);
  const profile =
    options.owner === undefined
      ? signedIn
      : await (
          await import('../client/orgs.js')
        ).publishOwner(api, orgsDeps(ctx, found), options.owner, signedIn);
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

/** What `--owner`'s check of the organisation's members needs: the hub and the token. */
function orgsDeps(ctx: Context, found: Found): OrgsDeps {
  return {
    api: ctx.hub().api,
    fetch: ctx.fetch,
    signal: ctx.signal,
    token: found.token,
    refused: () => refusedToken(ctx, found),
  };
}

/** --dry-run: what publishing would change (client/publish-dry-run.ts), uploading nothing. */
async function dryRun(
  options: PublishCommandOptions,
  source: PublishSource,
  report: Report,
  owner: string,
  token: string,
  ctx: Context,
): Promise<number> {
  const { dryRunPublish } = await import('../client/publish-dry-run.js');
  const plan = await dryRunPublish(options.path, source, report, owner, {
    fetch: carryingToken(ctx.fetch, ctx.hub(), token),
    site: ctx.hub().site,
    signal: ctx.signal,
  });
  if (ctx.globals.json) writeJson(ctx, plan);
  else if (!plan.published) {
    const { newDatasetText } = await import('../output/publish.js');
    ctx.io.stdout.write(newDatasetText(plan.dataset, plan.resources, ctx.colors));
  } else {
    const { diffText } = await import('@data/core');
    ctx.io.stdout.write(`${diffText(plan.diff, ctx.colors)}nothing was uploaded (--dry-run)\n`);
  }
  return EXIT.ok;
}
