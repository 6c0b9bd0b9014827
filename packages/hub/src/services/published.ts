/**
 * A revision as published: its descriptor, the storage prefix of the files the hub wrote for
 * it, and where each of its files' bytes are kept. Finding one for a request (who may see it,
 * which revision an address names) is in http/published.ts.
 */
import { basename } from 'node:path';
import {
  derivedOf,
  formatOf,
  isDerived,
  unsafeReason,
  type DiffSide,
  type Package,
  type Resource,
} from '@data/core';
import type { HubParts } from '../parts.js';
import { HttpError } from '../http-error.js';
import { DERIVED_FOLDER, objectPath, packagePath } from '../engines/storage/types.js';
import type { Dataset, Revision, User } from '../engines/metadata/types.js';

export interface Published {
  owner: User;
  dataset: Dataset;
  revision: Revision;
  /** Validated when the revision was published: the model's package. */
  descriptor: Package;
  /** The storage prefix of the files the hub wrote for the revision: descriptor and report. */
  prefix: string;
  /** Each local path and its object key; undefined for revisions of older hubs. */
  files: Record<string, string> | undefined;
}

/** A revision number as an address writes it: digits, no sign, no leading zero. */
export function isRevisionNumber(text: string | undefined): text is string {
  return text !== undefined && /^[1-9][0-9]{0,8}$/.test(text);
}

/** A revision as published, or undefined when it was not (or not yet). */
export function storedPackage(
  owner: User,
  dataset: Dataset,
  revision: Revision,
): Published | undefined {
  if (revision.state !== 'SUCCEEDED' || !revision.descriptor) return undefined;
  return {
    owner,
    dataset,
    revision,
    descriptor: JSON.parse(revision.descriptor) as Package,
    prefix: packagePath(owner.userid, dataset.name, revision.revision),
    files: revision.files ? (JSON.parse(revision.files) as Record<string, string>) : undefined,
  };
}

/**
 * The storage key of a resource path's bytes: its stored object, or, for revisions published
 * before the hub kept data in the object store only, the file in the revision's folder.
 */
export function storedKey(
  files: Record<string, string> | undefined,
  prefix: string,
  path: string,
): string | undefined {
  const key = files?.[path];
  if (key) return objectPath(key);
  // Older revisions kept their files in their folder; derived copies are kept there. A path
  // that is not one file of that folder (`_derived/a/../t_csv.csv`, which a derived resource
  // of a name with `..` in it had before core's derivedFile) is no key: it would be another's.
  if (!isFolderPath(path)) return undefined;
  return !files || path.startsWith(DERIVED_FOLDER) ? `${prefix}${path}` : undefined;
}

/** Whether a relative path names one file under a folder, and no other path names it. */
export function isFolderPath(path: string): boolean {
  return unsafeReason(path, 1) === undefined && !path.split('/').includes('');
}

/**
 * The name a resource's file is saved under: its path's file name, or, for a copy the hub
 * derived, its own name in its format, `/` written `-` (`a/t_csv.csv` is saved as
 * `a-t_csv.csv`), so that the copies of tables `a/t` and `t` are not saved as one file.
 */
export function savedName(resource: Resource): string {
  if (!isDerived(resource)) return basename(String(resource.path));
  return `${resource.name.replaceAll('/', '-')}.${formatOf(resource) ?? ''}`;
}

function fileOf(pkg: Published, path: string): string {
  const found = storedKey(pkg.files, pkg.prefix, path);
  if (!found) throw new HttpError(404, 'not found');
  return found;
}

/** The extension `/r/<name>.<ext>` serves a resource's own file at: its format (one rule). */
function extensionOf(resource: Resource): string {
  // A multipart resource is no one file, unless its format says what its parts are.
  if (Array.isArray(resource.path) && !(typeof resource.format === 'string' && resource.format))
    return '';
  return formatOf(resource) ?? '';
}

/**
 * The stored file of the resource whose `path` is exactly this relative path, or one of its
 * paths (a table in parts).
 */
export function resourceAtPath(pkg: Published, path: string): PickedFile {
  const resource = pkg.descriptor.resources.find(
    (candidate) =>
      candidate.path === path || (Array.isArray(candidate.path) && candidate.path.includes(path)),
  );
  if (!resource) throw new HttpError(404, 'not found');
  const name = isDerived(resource) ? savedName(resource) : basename(path);
  return { key: fileOf(pkg, path), name, resource };
}

/**
 * A file of a revision: its storage key, its name, and the resource it is, if any. A copy
 * the hub derived has no key when it is not stored with the revision (it is made when asked
 * for, under a key of the copies' own: copies.ts).
 */
export interface PickedFile {
  key: string | undefined;
  name: string;
  resource?: Resource;
}

/**
 * The stored file of a resource named `<name>.<ext>`, `<index>.<ext>` or `<path's file name>`
 * (that of one resource only): the original when its format has that extension, else its
 * derived copy in that format. A name with `/` in it (`a/t`) is asked for with the `/`
 * percent-encoded, in one segment (`/r/a%2Ft.csv`).
 */
export function resourceFile(pkg: Published, fileName: string): PickedFile {
  const resource = resourceNamed(pkg.descriptor.resources, fileName);
  if (!resource || typeof resource.path !== 'string' || /^https?:/i.test(resource.path))
    throw new HttpError(404, 'not found');
  const key = isDerived(resource)
    ? storedKey(pkg.files, pkg.prefix, resource.path)
    : fileOf(pkg, resource.path);
  return { key, name: savedName(resource), resource };
}

/** The resource `/r/<file name>` names (resourceFile), if any. */
function resourceNamed(resources: readonly Resource[], fileName: string): Resource | undefined {
  const asked = /^(.+)\.([a-z0-9]+)$/i.exec(fileName);
  const extension = asked?.[2]?.toLowerCase() ?? '';
  const byIndex = /^\d+$/.test(asked?.[1] ?? '') ? resources[Number(asked?.[1])] : undefined;
  const byName = resources.find((candidate) => candidate.name === asked?.[1]);
  for (const source of [byIndex, byName]) {
    if (!source) continue;
    const resource =
      extensionOf(source) === extension
        ? source
        : derivedOf(resources, `derived/${extension}`, source.name);
    if (resource) return resource;
  }
  // Tables `a/t` and `t` may both have a file `t.csv`: a file name that is more than one
  // resource's names none of them.
  const named = resources.filter((candidate) => {
    const path = typeof candidate.path === 'string' ? candidate.path : undefined;
    return path !== undefined && basename(path) === fileName;
  });
  return named.length === 1 ? named[0] : undefined;
}

/**
 * The file name at which `/r/` answers the resource at `index` of a package (resourceFile):
 * its path's file name where that names it (`cities.csv`), else `<index>.<ext>`, as for table
 * `a/t` at `a/t.csv` when a table `t` is there too (`/r/t.csv` is `t`'s).
 */
export function fileAddress(resources: readonly Resource[], index: number): string {
  const resource = resources[index];
  const path = typeof resource?.path === 'string' ? resource.path : undefined;
  const own = path === undefined ? undefined : basename(path);
  if (own && resourceNamed(resources, own) === resource) return own;
  return `${String(index)}.${resource ? extensionOf(resource) : ''}`;
}

/** A revision's files as the diff reads them: from the store, by their path in the revision. */
export function revisionSide(
  hub: Pick<HubParts, 'storage'>,
  pkg: Published,
  label: string,
): DiffSide {
  const root = `http://hub.invalid/${pkg.dataset.name}/`;
  return {
    label,
    descriptor: pkg.descriptor,
    base: { url: root },
    fetch: async (url) => {
      const path = decodeURIComponent(new URL(url).pathname.slice(new URL(root).pathname.length));
      const key = storedKey(pkg.files, pkg.prefix, path);
      if (!key || !(await hub.storage.stat(key))) return { ok: false, status: 404, body: null };
      return { ok: true, status: 200, body: await hub.storage.read(key) };
    },
  };
}
