/**
 * What `data get`, `info`, `cat` and `diff` name on a hub: a dataset or one of its files,
 * at the latest revision or at one revision's own address (`/<owner>/<dataset>/v/<N>/…`).
 */
import { UsageError } from '../errors.js';

export interface Target {
  /** URL of datapackage.json, or of a single file. */
  url: string;
  single: boolean;
  /** Default folder, relative to the current one. */
  folder: string;
  /** The revision the address names (`/v/<N>/`), if any. */
  revision?: number | undefined;
}

/** `<name>@<N>`: the name and the revision asked for, if any. */
export function withRevisionOf(name: string): { name: string; revision: number | undefined } {
  const match = /^(.+)@(\d+)$/.exec(name);
  if (!match) return { name, revision: undefined };
  return { name: match[1] ?? name, revision: revisionNumber(Number(match[2]), name) };
}

function revisionNumber(revision: number, asked: string): number {
  if (!Number.isSafeInteger(revision) || revision < 1)
    throw new UsageError(`"${asked}": a revision is a number from 1`);
  return revision;
}

/** Where `v/<N>` ends a dataset's address (owner and dataset before it), if it does. */
function revisionAt(parts: string[]): number | undefined {
  const at = parts.length - 2;
  return at >= 2 && parts[at] === 'v' && /^\d+$/.test(parts[at + 1] ?? '') ? at : undefined;
}

/**
 * owner/dataset, owner/dataset@N, owner/dataset/r/<file>, owner/dataset@N/r/<file>, or a URL
 * of any (`…/v/<N>/…` for a revision).
 */
export function parseTarget(input: string, site: string): Target {
  if (/^https?:\/\//i.test(input)) {
    const url = new URL(input);
    const parts = url.pathname.split('/').filter(Boolean);
    const single = parts.at(-2) === 'r';
    // The dataset's address: what comes before `r/<file>` or `datapackage.json`.
    const datasetParts = single
      ? parts.slice(0, -2)
      : parts.at(-1) === 'datapackage.json'
        ? parts.slice(0, -1)
        : parts;
    // A descriptor at `?v=N`, the address of revision N before `/v/<N>/`: read at its own,
    // where the descriptor's paths are its files' (at `?v=N` a hub prefixes them `v/N/`).
    const asked = url.searchParams.get('v');
    if (
      !single &&
      parts.at(-1) === 'datapackage.json' &&
      asked !== null &&
      /^[1-9]\d*$/.test(asked) &&
      revisionAt(datasetParts) === undefined
    ) {
      datasetParts.push('v', String(revisionNumber(Number(asked), input)));
      url.searchParams.delete('v');
    }
    const versioned = revisionAt(datasetParts);
    const revision = versioned === undefined ? undefined : Number(datasetParts[versioned + 1]);
    if (single) return { url: url.href, single: true, folder: '.', revision };
    const named = versioned === undefined ? datasetParts : datasetParts.slice(0, versioned);
    const descriptor = new URL(
      `${url.origin}/${[...datasetParts, 'datapackage.json'].join('/')}${url.search}`,
    );
    return {
      url: descriptor.href,
      single: false,
      folder: named.slice(-2).join('/') || 'dataset',
      revision,
    };
  }
  const parts = input.split('/').filter(Boolean);
  const { name, revision } = withRevisionOf(parts[1] ?? '');
  const dataset = [parts[0] ?? '', name].map(encodeURIComponent);
  const at = revision === undefined ? [] : ['v', String(revision)];
  if (parts.length === 2)
    return {
      url: `${site}/${[...dataset, ...at].join('/')}/datapackage.json`,
      single: false,
      folder: `${parts[0] ?? ''}/${name}`,
      revision,
    };
  if (parts.length === 4 && parts[2] === 'r')
    return {
      url: `${site}/${[...dataset, ...at, 'r', encodeURIComponent(parts[3] ?? '')].join('/')}`,
      single: true,
      folder: '.',
      revision,
    };
  throw new UsageError(
    `"${input}" is not owner/dataset, owner/dataset@N, owner/dataset/r/<file> or a URL`,
  );
}

/**
 * The same target at one revision's own address, `…/<owner>/<dataset>/v/<N>/…`, whose
 * relative paths stay in that revision; a target that names another revision already is a
 * usage error.
 */
export function atRevision(target: Target, revision: number | undefined): Target {
  if (revision === undefined) return target;
  revisionNumber(revision, String(revision));
  if (target.revision !== undefined) {
    if (target.revision === revision) return target;
    throw new UsageError(
      `revision ${String(revision)} asked for, but the address names revision ${String(target.revision)}`,
    );
  }
  const url = new URL(target.url);
  const parts = url.pathname.split('/');
  // Before `r/<file>` or `datapackage.json`: the dataset's address ends there.
  parts.splice(parts.length - (target.single ? 2 : 1), 0, 'v', String(revision));
  url.pathname = parts.join('/');
  const asked = url.searchParams.get('v');
  if (asked !== null && asked !== String(revision))
    throw new UsageError(
      `revision ${String(revision)} asked for, but the address names revision ${asked}`,
    );
  url.searchParams.delete('v');
  return { ...target, url: url.href, revision };
}

/**
 * Revision N at `datapackage.json?v=N`, or one file of it at `r/<file>?v=N`, as hubs before
 * `/v/<N>/` read them.
 */
export function olderHubTarget(target: Target): Target | undefined {
  if (target.revision === undefined) return undefined;
  const url = new URL(target.url);
  const parts = url.pathname.split('/');
  // Before `r/<file>` or `datapackage.json`.
  const at = parts.length - (target.single ? 4 : 3);
  if (parts[at] !== 'v' || parts[at + 1] !== String(target.revision)) return undefined;
  parts.splice(at, 2);
  url.pathname = parts.join('/');
  url.searchParams.set('v', String(target.revision));
  return { ...target, url: url.href, revision: undefined };
}
