import { InvalidArgumentError, type Command } from 'commander';
import { claimsProblem, DATASET_NAME, parseClaim, UsageError } from '@data/core';
import type { Context } from '../context.js';
import type { PublishersDeps } from '../client/publishers.js';
import { requireToken, signedInDeps, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface PublisherAddOptions {
  issuer: string;
  claim: Record<string, string>;
}

/** `OWNER/DATASET`: the dataset need not exist yet. */
function ownerDataset(value: string): string {
  const [owner = '', dataset = '', ...more] = value.split('/');
  if (!/^[^\s/]+$/.test(owner) || !DATASET_NAME.test(dataset) || more.length > 0)
    throw new InvalidArgumentError('expected owner/dataset, such as ada/world-cities');
  return value;
}

/** `--claim KEY=VALUE`, as many times as wanted; a key given twice is a mistake. */
function claim(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const pair = parseClaim(value);
  if (!pair) throw new InvalidArgumentError('expected KEY=VALUE, such as repository=ada/cities');
  const [key, given] = pair;
  if (key in previous) throw new InvalidArgumentError(`the claim ${key} is given twice`);
  return { ...previous, [key]: given };
}

/** The issuer exactly as given (as its tokens' `iss` names it), once it is seen to be a URL. */
function issuer(value: string): string {
  try {
    new URL(value);
    return value;
  } catch {
    throw new InvalidArgumentError(
      'expected the issuer as its tokens name it, such as https://token.actions.githubusercontent.com',
    );
  }
}

export function registerPublisher(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  const publisher = program
    .command('publisher')
    .summary('say which CI workflows may publish a dataset, with no stored secret');
  publisher
    .command('add')
    .summary(
      "trust a CI workflow to publish a dataset: every claim given must equal its ID token's",
    )
    .argument('<owner/dataset>', 'the dataset (it need not exist yet)', ownerDataset)
    .requiredOption(
      '--issuer <url>',
      "the issuer of the workflow's ID tokens, one the hub trusts",
      issuer,
    )
    .requiredOption(
      '--claim <key=value>',
      'a claim its ID token must carry with this value (repeatable)',
      claim,
    )
    .addHelpText(
      'after',
      '\nExamples:\n  data publisher add ada/cities --issuer https://token.actions.githubusercontent.com \\\n    --claim repository=ada/cities --claim ref=refs/heads/main\n  data publisher add ada/cities --issuer https://gitlab.com --claim project_path=ada/cities',
    )
    .action(async (dataset: string, options: PublisherAddOptions, command: Command) => {
      setExitCode(await addPublisher(dataset, options, contextFor(command)));
    });
  publisher
    .command('list')
    .summary("a dataset's trusted publishers: id, issuer, claims, added, by whom")
    .argument('<owner/dataset>', 'the dataset', ownerDataset)
    .action(async (dataset: string, _options: unknown, command: Command) => {
      setExitCode(await listPublishers(dataset, contextFor(command)));
    });
  publisher
    .command('remove')
    .summary('stop trusting a workflow to publish a dataset')
    .argument('<owner/dataset>', 'the dataset', ownerDataset)
    .argument('<id>', "the publisher's id, as `data publisher list` shows it")
    .action(async (dataset: string, id: string, _options: unknown, command: Command) => {
      setExitCode(await removePublisher(dataset, id, contextFor(command)));
    });
}

async function deps(ctx: Context): Promise<PublishersDeps> {
  return signedInDeps(ctx, await requireToken(ctx), { issuer: '--issuer', claims: '--claim' });
}

export async function addPublisher(
  dataset: string,
  options: PublisherAddOptions,
  ctx: Context,
): Promise<number> {
  // The claims the hub would refuse, said before it is asked (core's rule, the hub's too).
  const problem = claimsProblem(options.claim);
  if (problem) throw new UsageError(`publisher add: ${problem}`);
  const { runPublisherAdd } = await import('../client/publishers.js');
  const { publisher, added } = await runPublisherAdd(
    dataset,
    { issuer: options.issuer, claims: options.claim },
    await deps(ctx),
  );
  // The same workflow again: the publisher kept already, said so, and nothing added (exit 0).
  if (ctx.globals.json) writeJson(ctx, { ...publisher, added });
  else {
    const { alreadyNote, publisherLine } = await import('../output/publishers.js');
    ctx.io.stdout.write(publisherLine(publisher));
    if (!added) ctx.io.stderr.write(alreadyNote(publisher));
  }
  return 0;
}

export async function listPublishers(dataset: string, ctx: Context): Promise<number> {
  const { runPublisherList } = await import('../client/publishers.js');
  const listed = await runPublisherList(dataset, await deps(ctx));
  if (ctx.globals.json) {
    writeJson(ctx, listed);
    return 0;
  }
  const { renderPublishers } = await import('../output/publishers.js');
  ctx.io.stdout.write(renderPublishers(dataset, listed, ctx.io.isStdoutTTY, ctx.colors));
  return 0;
}

export async function removePublisher(dataset: string, id: string, ctx: Context): Promise<number> {
  const { runPublisherRemove } = await import('../client/publishers.js');
  const removed = await runPublisherRemove(dataset, id, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, removed);
  else {
    const { removedLine } = await import('../output/publishers.js');
    ctx.io.stdout.write(removedLine(removed));
  }
  return 0;
}
