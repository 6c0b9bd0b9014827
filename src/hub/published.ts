import { basename, join } from 'node:path';
import { userOf, type Hub } from './context.js';
import { HttpError, type Request } from './http.js';
import { revisionDir } from './pipeline.js';
import type { Dataset, Revision, User } from './store.js';

export interface Published {
  owner: User;
  dataset: Dataset;
  revision: Revision;
  descriptor: Record<string, unknown> & { resources: Record<string, unknown>[] };
  dir: string;
}

/** Private datasets are seen by their owner only. */
function hiddenFrom(hub: Hub, request: Request, found: { owner: User; dataset: Dataset }): boolean {
  return (
    found.dataset.findability === 'private' && userOf(hub, request)?.userid !== found.owner.userid
  );
}

function ownedDataset(
  hub: Hub,
  ownerName: string,
  name: string,
): { owner: User; dataset: Dataset } | undefined {
  const owner = hub.store.userByName(ownerName);
  const dataset = owner ? hub.store.dataset(owner.userid, name) : undefined;
  return owner && dataset ? { owner, dataset } : undefined;
}

/** A dataset the requester may see, or undefined. */
export function visibleDataset(
  hub: Hub,
  request: Request,
  ownerName: string,
  name: string,
): { owner: User; dataset: Dataset } | undefined {
  const found = ownedDataset(hub, ownerName, name);
  return found && !hiddenFrom(hub, request, found) ? found : undefined;
}

/** The published revision (or the one `?v=` names, if it succeeded) of a visible dataset. */
export function published(hub: Hub, request: Request, ownerName: string, name: string): Published {
  const asked = request.url.searchParams.get('v');
  const key = `${ownerName}/${name}/${asked ?? ''}`;
  const cached = hub.lookups.get(key);
  let found =
    cached?.version === hub.store.version ? (cached.value as Published | undefined) : undefined;
  if (!found) {
    found = lookUp(hub, ownerName, name, asked);
    if (hub.lookups.size > 10_000) hub.lookups.clear();
    hub.lookups.set(key, { version: hub.store.version, value: found });
  }
  if (hiddenFrom(hub, request, found)) throw new HttpError(404, 'not found');
  return found;
}

function lookUp(hub: Hub, ownerName: string, name: string, asked: string | null): Published {
  const found = ownedDataset(hub, ownerName, name);
  if (!found) throw new HttpError(404, 'not found');
  const { owner, dataset } = found;
  const revision = hub.store.revision(owner.userid, name, asked ?? 'successful');
  if (revision?.state !== 'SUCCEEDED' || !revision.descriptor)
    throw new HttpError(404, 'not found');
  const descriptor = JSON.parse(revision.descriptor) as Published['descriptor'];
  return {
    owner,
    dataset,
    revision,
    descriptor,
    dir: revisionDir(hub, owner.userid, name, revision.revision),
  };
}
function extensionOf(resource: Record<string, unknown>): string {
  if (typeof resource.format === 'string' && resource.format !== '')
    return resource.format.toLowerCase();
  const path = typeof resource.path === 'string' ? resource.path : '';
  return /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
}

/** The stored file of the resource whose `path` is exactly this relative path. */
export function resourceAtPath(pkg: Published, path: string): { path: string; name: string } {
  const resource = pkg.descriptor.resources.find((candidate) => candidate.path === path);
  if (!resource) throw new HttpError(404, 'not found');
  return { path: join(pkg.dir, path), name: basename(path) };
}

/** The stored file of a resource named `<name>.<ext>`, `<path's file name>` or `<index>.<ext>`. */
export function resourceFile(pkg: Published, fileName: string): { path: string; name: string } {
  const resources = pkg.descriptor.resources;
  const byIndex = /^(\d+)\.([a-z0-9]+)$/i.exec(fileName);
  let resource: Record<string, unknown> | undefined;
  if (byIndex) {
    const candidate = resources[Number(byIndex[1])];
    if (candidate && extensionOf(candidate) === byIndex[2]?.toLowerCase()) resource = candidate;
  }
  resource ??= resources.find((candidate) => {
    const path = typeof candidate.path === 'string' ? candidate.path : undefined;
    return (
      `${String(candidate.name)}.${extensionOf(candidate)}` === fileName ||
      (path !== undefined && basename(path) === fileName)
    );
  });
  if (!resource || typeof resource.path !== 'string' || /^https?:/i.test(resource.path))
    throw new HttpError(404, 'not found');
  return { path: join(pkg.dir, resource.path), name: basename(resource.path) };
}
