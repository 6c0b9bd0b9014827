/**
 * One side of a diff: a local package (folder, descriptor or single data file), or a hub
 * dataset, `owner/dataset` (its published revision) or `owner/dataset@N` (revision N).
 */
import { basename, dirname } from 'node:path';
import { localDescriptor, readerFetch } from '../sources/cat.js';
import { packageShape } from '../sources/descriptor-shape.js';
import { json, send, type HttpFetch } from '../http/http.js';
import { atRevision, olderHubTarget, parseTarget, withRevisionOf } from '../sources/target.js';
import { AuthError, UsageError } from '../errors.js';
import type { ResourceDescriptor } from '../validator/descriptor/types.js';
import type { Base, Fetch } from '../validator/location.js';

export interface PackageLike {
  resources?: ResourceDescriptor[];
  [property: string]: unknown;
}

export interface DiffSide {
  /** How the side is named in the output: the path, or owner/dataset@N. */
  label: string;
  descriptor: PackageLike;
  base: Base;
  fetch: Fetch;
}

export interface SideContext {
  /** Carries the hub's token where it belongs (see client/credential.ts). */
  fetch: HttpFetch;
  /** The hub's site, for owner/dataset. */
  site: string;
  /** Whether a token goes with this URL: for the hint when a dataset does not show. */
  signedIn: (url: string) => boolean;
  signal?: AbortSignal | undefined;
  /** Whether a name is read here rather than from the hub (commands/local-or-hub.ts). */
  isLocal: (input: string) => boolean;
}

/** A package in a local folder: its files are read from there. */
export function folderSide(label: string, descriptor: PackageLike, dir: string): DiffSide {
  return {
    label,
    descriptor,
    base: { dir },
    fetch: () => Promise.reject(new Error('a local package is read from its folder')),
  };
}

async function localSide(path: string): Promise<DiffSide> {
  const local = await localDescriptor(path);
  if (local) return folderSide(path, local.descriptor, local.dir);
  const name = basename(path).replace(/\.[^.]+$/, '') || 'table';
  return folderSide(path, { resources: [{ name, path: basename(path) }] }, dirname(path));
}

/** Reads of revision N from a hub older than revision addresses: `?v=N` on each. */
function olderHubFetch(context: SideContext, revision: number): Fetch {
  const fetch = readerFetch(context.fetch);
  return (url, init) => {
    const address = new URL(url);
    address.searchParams.set('v', String(revision));
    return fetch(address.href, init);
  };
}

async function hubSide(input: string, context: SideContext): Promise<DiffSide> {
  const { name: dataset, revision } = withRevisionOf(input);
  // A revision is read at its own address: every path of its descriptor resolves in it.
  const target = atRevision(parseTarget(dataset, context.site), revision);
  if (target.single) throw new UsageError(`"${input}" is one file: give owner/dataset`);
  const url = new URL(target.url);
  const signal = context.signal ? { signal: context.signal } : {};
  let response = await send(context.fetch, `read ${url.href}`, url.href, signal);
  // A hub older than revision addresses answers ?v=N itself, where a newer one moves it.
  const older = response.status === 404 ? olderHubTarget(target) : undefined;
  let at = target;
  if (older) {
    const then = await send(context.fetch, `read ${older.url}`, older.url, {
      ...signal,
      redirect: 'manual',
    });
    if (then.status === 200) [response, at] = [then, older];
    else await then.text();
  }
  // A dataset the hub does not show (private, or no such revision) is one this user may
  // not read: no rows of it are shown.
  if (response.status === 404 || response.status === 401 || response.status === 403) {
    await response.text();
    const signedIn = context.signedIn(url.href);
    throw new AuthError(
      `no dataset ${dataset}${revision === undefined ? '' : ` revision ${String(revision)}`} that you may read`,
      {
        hint: signedIn
          ? "check the owner, the dataset and the revision; a private dataset shows only to its owner, an organisation's to its members too"
          : 'check the owner and the dataset; if it is private, sign in first',
        reason: 'dataset-unreadable',
        signedIn,
      },
    );
  }
  const descriptor = packageShape(await json(`read ${at.url}`, response), at.url);
  return {
    label: revision === undefined ? dataset : `${dataset}@${String(revision)}`,
    descriptor,
    base: { url: at.url },
    fetch:
      at === target || revision === undefined
        ? readerFetch(context.fetch)
        : olderHubFetch(context, revision),
  };
}

/** Resolves what the user named: local by the caller's rule, else a hub dataset. */
export async function diffSide(input: string, context: SideContext): Promise<DiffSide> {
  if (context.isLocal(input)) return localSide(input);
  if (/^https?:\/\//i.test(input) || /^[^/\s]+\/[^/\s]+$/.test(input))
    return hubSide(input, context);
  throw new UsageError(
    `"${input}" is no folder, descriptor or file here, and no owner/dataset`,
    'give a local package, owner/dataset or owner/dataset@N',
  );
}
