/**
 * The use case of `data publish`: the source found and named, the credential, the source
 * read and validated, the token checked, `--owner`, then a dry run or the publication. No
 * terminal I/O: the command renders the result and the progress events.
 */
import { carryingToken } from '@data/core';
import type { HttpFetch, Report } from '@data/core';
import type { Found } from '../credentials/store.js';
import { profileOf, type HubApi } from './api.js';
import type { OrgsDeps } from './orgs.js';
import type { Findability, PublishEvent, PublishResult } from './publish.js';
import type { DryRun } from './publish-dry-run.js';
import type { ResolvedSource, ValidatePublished } from './publish-source.js';

export interface PublishRunOptions {
  /** A folder holding a datapackage.json, a descriptor, or a single data file. */
  path: string;
  /** The dataset name of a single data file. */
  name?: string | undefined;
  findability: Findability;
  wait: boolean;
  force?: boolean | undefined;
  timeoutMs: number;
  pollMs?: number | undefined;
  /** `--sheets`, as parseSheets takes it. */
  sheets?: string | undefined;
  dryRun?: boolean | undefined;
  /** An organisation to publish under, rather than the signed-in user. */
  owner?: string | undefined;
}

/** Where the progress of the uploads and of the hub's publication goes, while it lasts. */
export interface PublishProgress {
  onEvent: (event: PublishEvent) => void;
  stop: () => void;
}

export interface PublishRunDeps {
  api: HubApi;
  /** The hub's addresses: its API and its site. */
  hub: { api: string; site: string };
  fetch: HttpFetch;
  signal: AbortSignal;
  /** The token to publish `dataset` (owner/name, or name) with; asked before a data file is read. */
  credential: (dataset: string | undefined) => Promise<Found>;
  /** What the signed-in requests need (`--owner`'s), the refusal of the token among it. */
  signedIn: (found: Found) => OrgsDeps;
  /** Validates the source as `data validate` does, or a descriptor held in memory. */
  validate: ValidatePublished;
  /** Opened when the uploads start, stopped when the publication is over. */
  progress: () => Promise<PublishProgress>;
}

export type PublishRunResult =
  { invalid: Report } | { plan: DryRun } | { published: PublishResult };

/**
 * Publishes a package, or says what publishing it would change (`dryRun`). The path and
 * the dataset's name are checked first (a path that is not there: no request), then the
 * credential, then the data is read: without a token, no data file is read.
 */
export async function runPublish(
  options: PublishRunOptions,
  deps: PublishRunDeps,
): Promise<PublishRunResult> {
  const { locatePublishSource } = await import('./publish-source.js');
  const located = await locatePublishSource(options.path, options.name, options.sheets);
  const owner = options.owner?.toLowerCase();
  const name = located.name;
  const found = await deps.credential(owner && name ? `${owner}/${name}` : name);
  const source = await located.open();
  try {
    return await validateAndPublish(options, source, found, deps);
  } finally {
    await source.cleanup();
  }
}

async function validateAndPublish(
  options: PublishRunOptions,
  source: ResolvedSource,
  found: Found,
  deps: PublishRunDeps,
): Promise<PublishRunResult> {
  const { validateForPublish } = await import('./publish-source.js');
  const report = await validateForPublish(source, deps.validate, deps.signal);
  if (!report.valid) return { invalid: report };
  const signedIn = profileOf(await deps.api.check(found.token));
  if (!signedIn) throw deps.signedIn(found).refused();
  const profile =
    options.owner === undefined
      ? signedIn
      : await (
          await import('./orgs.js')
        ).publishOwner(deps.api, deps.signedIn(found), options.owner, signedIn);
  if (options.dryRun) {
    const { dryRunPublish } = await import('./publish-dry-run.js');
    const plan = await dryRunPublish(options.path, source, report, profile.username, {
      fetch: carryingToken(deps.fetch, deps.hub, found.token),
      site: deps.hub.site,
      signal: deps.signal,
    });
    return { plan };
  }
  const { publishPackage } = await import('./publish.js');
  const progress = await deps.progress();
  try {
    const published = await publishPackage({
      source,
      api: deps.api,
      fetch: deps.fetch,
      site: deps.hub.site,
      token: found.token,
      profile,
      findability: options.findability,
      wait: options.wait,
      force: options.force === true,
      timeoutMs: options.timeoutMs,
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      signal: deps.signal,
      onEvent: progress.onEvent,
    });
    return { published };
  } finally {
    progress.stop();
  }
}
