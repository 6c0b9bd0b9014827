import type { RevisionEntry, SearchResult } from '@data/core';
import { ApiError, RefusedError, UsageError } from '@data/core';
import type { HubApi } from './api.js';

/** The hub a use case about datasets asks, and the token it goes with, if any. */
export interface DatasetsDeps {
  api: HubApi;
  token: string | undefined;
}

export interface SearchOptions {
  /** Words to look for; none: the newest datasets. */
  words: string;
  /** How many to show: at most 100. */
  size: number;
  /** One owner's datasets only (all of them, to that owner). */
  owner?: string | undefined;
}

/** The use case of `data search` and `data list`: the datasets found, and how many there are. */
export function runSearch(
  options: SearchOptions,
  deps: DatasetsDeps,
): Promise<{ results: SearchResult[]; total: number }> {
  return deps.api.search(
    options.words,
    { size: Math.min(100, Math.floor(options.size)), owner: options.owner },
    deps.token,
  );
}

/** owner/dataset split, or a usage error. */
export function ownerAndName(target: string): { owner: string; name: string } {
  const parts = target.split('/');
  const [owner, name] = parts;
  if (parts.length !== 2 || !owner || !name)
    throw new UsageError(`"${target}" is not owner/dataset`);
  return { owner, name };
}

/**
 * Calls the hub about owner/dataset by the owner's user id; an owner or a dataset the hub
 * does not have (or does not show) is "no dataset".
 */
async function onDataset<T>(
  api: HubApi,
  target: string,
  signedIn: boolean,
  call: (ownerid: string, name: string) => Promise<T>,
): Promise<T> {
  const { owner, name } = ownerAndName(target);
  const { noSuchDataset } = await import('./get.js');
  const missing = noSuchDataset({ url: target, single: false, folder: target }, signedIn);
  const ownerid = await api.resolve(owner);
  if (!ownerid) throw missing;
  return call(ownerid, name).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) throw missing;
    // Seen but not the caller's to change (a reader of an organisation deleting): refused.
    if (error instanceof ApiError && error.status === 403) throw new RefusedError(error.message);
    throw error;
  });
}

/** The use case of `data history`: a dataset's revisions, as the hub shows them to this token. */
export async function runHistory(
  options: { dataset: string },
  deps: DatasetsDeps,
): Promise<{ dataset: string; revisions: RevisionEntry[] }> {
  const { owner, name } = ownerAndName(options.dataset);
  const revisions = await onDataset(
    deps.api,
    options.dataset,
    deps.token !== undefined,
    (ownerid) => deps.api.revisions(ownerid, name, deps.token),
  );
  return { dataset: `${owner}/${name}`, revisions };
}

/** The use case of `data delete`, once it is decided: the dataset and all its revisions go. */
export async function runDelete(
  options: { dataset: string },
  deps: DatasetsDeps & { token: string },
): Promise<{ deleted: string }> {
  const { owner, name } = ownerAndName(options.dataset);
  await onDataset(deps.api, options.dataset, true, (ownerid) =>
    deps.api.deleteDataset(ownerid, name, deps.token),
  );
  return { deleted: `${owner}/${name}` };
}
