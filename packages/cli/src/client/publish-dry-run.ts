import type { HttpFetch, PackageDiff, Report } from '@data/core';
import type { PlannedResource, PublishSource } from './publish.js';

/** What a publication would change: all of a dataset not published yet, or the diff. */
export type DryRun =
  | { dataset: string; published: false; diff: null; resources: PlannedResource[] }
  | { dataset: string; published: true; diff: PackageDiff };

export interface DryRunDeps {
  /** Carries the signed-in user's token to the hub. */
  fetch: HttpFetch;
  /** The hub's site, where owner/dataset is read. */
  site: string;
  signal: AbortSignal;
}

/**
 * What publishing would change, against the revision the hub has published: nothing is
 * uploaded. A dataset not published yet (or one the hub will not show) is all new, each of
 * its resources listed with its rows (from the validation) and its size.
 */
export async function dryRunPublish(
  path: string,
  source: PublishSource,
  report: Report,
  owner: string,
  deps: DryRunDeps,
): Promise<DryRun> {
  const { AuthError, diffPackages, diffSide, folderSide } = await import('@data/core');
  const dataset = `${owner}/${String(source.descriptor.name)}`;
  const local = folderSide(path, source.descriptor, source.dir);
  const published = await diffSide(dataset, {
    fetch: deps.fetch,
    site: deps.site,
    signedIn: () => true,
    signal: deps.signal,
    isLocal: () => false,
  }).catch((error: unknown) => {
    if (error instanceof AuthError) return undefined;
    throw error;
  });
  if (!published) {
    const { plannedResources } = await import('./publish.js');
    return {
      dataset,
      published: false,
      diff: null,
      resources: await plannedResources(source, report),
    };
  }
  const diff = await diffPackages(published, local, { limit: 10, signal: deps.signal });
  return { dataset, published: true, diff };
}
