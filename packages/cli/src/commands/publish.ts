import type { Command } from 'commander';
import { positive } from './arguments.js';
import { Option } from 'commander';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { hubApi, signedInDeps, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';
import { printReport, validateWithProgress } from './validate.js';
import type { Findability } from '../client/publish.js';
import type { DryRun } from '../client/publish-dry-run.js';

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
        setExitCode(await runPublishCommand({ ...options, path }, contextFor(command)));
      },
    );
}

export async function runPublishCommand(
  options: PublishCommandOptions,
  ctx: Context,
  pollMs?: number,
): Promise<number> {
  const check = { source: options.path, limitErrors: 1000, format: 'text' as const };
  const { runPublish } = await import('../client/publish-run.js');
  const { timeout, ...rest } = options;
  const result = await runPublish(
    { ...rest, timeoutMs: timeout * 60_000, pollMs },
    {
      api: hubApi(ctx),
      hub: ctx.hub(),
      fetch: ctx.fetch,
      signal: ctx.signal,
      // In CI with no token: trusted publishing (commands/trusted.ts) for this dataset.
      credential: async (dataset) => (await import('./trusted.js')).publishCredential(ctx, dataset),
      signedIn: (found) => signedInDeps(ctx, found),
      validate: (held) => validateWithProgress(check, ctx, held),
      progress: async () => {
        const { publishProgress } = await import('../output/publish.js');
        const { startProgress } = await import('../output/spinner.js');
        const progress = await startProgress(ctx, 'publishing');
        return { onEvent: publishProgress(progress.update, progress.log), stop: progress.stop };
      },
    },
  );
  if ('invalid' in result) {
    ctx.io.stderr.write('error: the package is invalid; nothing was uploaded\n');
    await printReport(result.invalid, check, ctx);
    return EXIT.invalid;
  }
  if ('plan' in result) return renderDryRun(result.plan, ctx);
  const published = result.published;
  if (ctx.globals.json) {
    const { status, ...fields } = published;
    writeJson(ctx, {
      ...fields,
      pipelines: status?.pipelines ?? null,
      errorLog: status?.error_log ?? [],
    });
  } else {
    const { publishSummary } = await import('../output/publish.js');
    ctx.io.stdout.write(publishSummary(published, ctx.colors));
  }
  return published.state === 'FAILED' ? EXIT.invalid : EXIT.ok;
}

/** --dry-run: what publishing would change (client/publish-dry-run.ts), uploading nothing. */
async function renderDryRun(plan: DryRun, ctx: Context): Promise<number> {
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
