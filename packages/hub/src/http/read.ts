import type { ServerResponse } from 'node:http';
import type { Package } from '@data/core';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import type { Request } from './request.js';
import { wantedCopy } from '../services/copies/copies.js';
import type { CopyWanted } from '../services/copies/copy-table.js';
import {
  published,
  publishedRevision,
  rawSegments,
  versionedAddress,
  visibleDataset,
} from './published.js';
import {
  isRevisionNumber,
  resourceAtPath,
  resourceFile,
  type PickedFile,
  type Published,
} from '../services/published.js';
import { needsWhole, sendBytes, sendGrowing, sendLocalFile, sendStored } from './send-file.js';

/** Which file of a published revision to send, and the name its type is told by. */
export type Pick = (pkg: Published) => PickedFile;

/**
 * Sends one file of a visible, published revision of owner/name; `pick` says which, and
 * `revision` which revision the address names (null: the latest, at its unversioned address).
 */
export async function sendPublished(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  pick: Pick,
  revision: string | null = null,
): Promise<void> {
  const pkg =
    revision === null
      ? await published(hub, request, owner, name)
      : await publishedRevision(hub, request, owner, name, revision);
  const found = pick(pkg);
  const cache = cachePolicy(pkg, revision !== null);
  // The latest's answer names the revision it is, at the address that keeps its bytes.
  if (revision === null)
    response.setHeader('Content-Location', versionedAddress(request, pkg.revision.revision));
  // A copy is sent from its stored file where there is one (the original that is its own
  // copy, revisions published before copies were made when asked for), else made or kept.
  const wanted = found.resource && wantedCopy(pkg, found.resource);
  if (wanted && !(found.key !== undefined && (await hub.storage.stat(found.key))))
    return sendCopy(hub, request, response, pkg, wanted, cache);
  if (found.key === undefined) throw new HttpError(404, 'not found');
  await sendStored(request.raw, response, hub.storage, found.key, {
    name: found.name,
    cache,
    // A resource's file is data, saved under its own name; the descriptor and report are read.
    disposition: found.resource ? 'attachment' : 'inline',
    encoding: found.resource?.encoding,
  });
}

/** Sends a derived copy where Copies has it: kept, whole in the scratch folder, or being made. */
async function sendCopy(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  pkg: Published,
  wanted: CopyWanted,
  cache: string,
): Promise<void> {
  const copy = await hub.copies.answer(pkg, wanted, needsWhole(request.raw));
  const { name, type, etag, modified, bytes } = copy;
  const options = { name, type, etag, modified, cache, disposition: 'attachment' } as const;
  try {
    if (bytes.from === 'store')
      await sendStored(request.raw, response, hub.storage, bytes.key, options);
    else if (bytes.from === 'scratch')
      await sendLocalFile(request.raw, response, bytes.path, options);
    else await sendGrowing(response, bytes.stream, bytes.length, options);
  } finally {
    copy.release();
  }
}

/**
 * Revision N's descriptor at the address clients before `/v/<N>/` read it,
 * `datapackage.json?v=N`: its relative paths (of resources, and of their schemas and
 * dialects) begin with `v/N/`, so that resolved against this address, as a Frictionless
 * reader resolves them (not against the address a redirect would lead to), they reach
 * revision N's files. Other bytes than `/v/N/datapackage.json`, which the Link names.
 */
export async function sendDescriptorAt(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  revision: string,
): Promise<void> {
  const pkg = await publishedRevision(hub, request, owner, name, revision);
  // The revision's record holds the descriptor the pipeline stored as datapackage.json.
  const bytes = Buffer.from(
    `${JSON.stringify(underRevision(pkg.descriptor, revision), null, 2)}\n`,
  );
  response.setHeader('Link', `<${versionedAddress(request, revision)}>; rel="canonical"`);
  await sendBytes(request.raw, response, bytes, {
    name: 'datapackage.json',
    cache: cachePolicy(pkg, true),
    disposition: 'inline',
    modified: new Date(pkg.revision.created),
  });
}

/** A descriptor whose relative paths begin with `v/<revision>/`; URLs are left as they are. */
function underRevision(descriptor: Package, revision: string): Package {
  const moved = <T>(path: T): T | string =>
    typeof path === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(path) && !path.startsWith('/')
      ? `v/${revision}/${path}`
      : path;
  const resources = descriptor.resources.map((resource) => ({
    ...resource,
    ...('path' in resource
      ? { path: Array.isArray(resource.path) ? resource.path.map(moved) : moved(resource.path) }
      : {}),
    ...(typeof resource.schema === 'string' ? { schema: moved(resource.schema) } : {}),
    ...(typeof resource.dialect === 'string' ? { dialect: moved(resource.dialect) } : {}),
  }));
  return { ...descriptor, resources };
}

/**
 * What a cache in front of the hub (a CDN) may do: never keep what only the owner may read
 * (a shared cache must not hold it at all, whatever Vary names); keep what anyone may read, for a
 * year without asking again at a revision's own address (`/v/<N>/…`, whose bytes never
 * change), and asking the hub again each time at the latest's (the ETag makes that cheap, and
 * a new revision is seen at once).
 */
export function cachePolicy(pkg: Published, versioned: boolean): string {
  const isPrivate = pkg.dataset.findability === 'private' || pkg.revision.findability === 'private';
  if (isPrivate) return 'private, no-store';
  return versioned ? IMMUTABLE : 'public, no-cache';
}

/** What never changes and anyone may read: kept a year, never asked for again meanwhile. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A file the pipeline stored beside the data: datapackage.json, validation_report.json. */
export const stored =
  (file: string): Pick =>
  (pkg) => ({ key: `${pkg.prefix}${file}`, name: file });

/** `/r/<file name>` or `/r/<index>.<extension>`. */
export const byFileName =
  (file: string): Pick =>
  (pkg) =>
    resourceFile(pkg, file);

/** A resource at its relative path under the dataset, as descriptors with relative paths need. */
export const atPath =
  (path: string): Pick =>
  (pkg) =>
    resourceAtPath(pkg, path);

/**
 * Where a read in another case belongs: `/<owner>/<dataset>/…` with the owner and the
 * dataset as they are named, the rest of the path and the query kept. Undefined when the
 * address is already so, or names nothing the asker may see: a dataset hidden from the
 * asker is not there, in any case. Of datasets an older hub holds under names that differ
 * in case only, the first by name the asker may see. A revision's own address
 * (`/<owner>/<dataset>/v/<N>…`) has its owner's case put right only: its dataset is the one
 * named so or none, as revision N of a dataset named in another case, which an older hub
 * may hold beside it or after it deleted this one, is other bytes.
 */
export async function canonicalAddress(hub: Hub, request: Request): Promise<string | undefined> {
  const [ownerAsked, nameAsked, third, fourth] = request.segments;
  if (ownerAsked === undefined) return undefined;
  const owner =
    (await hub.store.userByName(ownerAsked)) ??
    (await hub.store.userByName(ownerAsked.toLowerCase()));
  if (!owner) return undefined;
  let name = nameAsked;
  if (nameAsked !== undefined && !(await hub.store.dataset(owner.userid, nameAsked))) {
    if (third === 'v' && isRevisionNumber(fourth)) return undefined;
    for (const candidate of await hub.store.datasetsInAnyCase(owner.userid, nameAsked))
      if (await visibleDataset(hub, request, owner.username, candidate.name)) {
        name = candidate.name;
        break;
      }
  }
  if (owner.username === ownerAsked && name === nameAsked) return undefined;
  const rest = rawSegments(request);
  const fixed = [owner.username, ...(name === undefined ? [] : [name])].map(encodeURIComponent);
  return `/${[...fixed, ...rest.slice(fixed.length)].join('/')}${request.url.search}`;
}
