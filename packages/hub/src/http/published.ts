/**
 * The published revision a request asks for, if the requester may see it: private datasets
 * and revisions are seen by those who may read them (access.ts), and `?v=` or `/v/<N>/` names a revision.
 */
import type { HubParts } from '../parts.js';
import { callerOf, type TokenCheck } from './callers.js';
import { may } from '../services/access.js';
import { HttpError } from '../http-error.js';
import { type Request } from './request.js';
import type { Dataset, Revision, User } from '../engines/metadata/types.js';
import { isRevisionNumber, storedPackage, type Published } from '../services/published.js';

/** What finding a published revision takes: the database, its cache of lookups, the keys. */
export type Lookups = TokenCheck & Pick<HubParts, 'lookups'>;

/**
 * Private datasets are seen only by those who may read their owner's (the owner, and an
 * organisation's members; a trusted publisher's token the one dataset it publishes), and so
 * is a revision published as private, whatever the dataset's findability is now.
 */
/**
 * Whether a revision is hidden from the asker: the one rule of its reads, files, rows and
 * page alike (a private dataset or revision shows to those who may read the dataset only).
 */
export async function hiddenFrom(
  hub: TokenCheck,
  request: Request,
  found: { owner: User; dataset: Dataset; revision?: Revision },
): Promise<boolean> {
  const isPrivate =
    found.dataset.findability === 'private' || found.revision?.findability === 'private';
  if (!isPrivate) return false;
  const caller = await callerOf(hub, request);
  return !(await may(
    hub.store.organisations,
    caller,
    'read',
    found.owner.userid,
    found.dataset.name,
  ));
}

async function ownedDataset(
  hub: Pick<HubParts, 'store'>,
  ownerName: string,
  name: string,
): Promise<{ owner: User; dataset: Dataset } | undefined> {
  const owner = await hub.store.userByName(ownerName);
  const dataset = owner ? await hub.store.dataset(owner.userid, name) : undefined;
  return owner && dataset ? { owner, dataset } : undefined;
}

/** A dataset the requester may see, or undefined. */
export async function visibleDataset(
  hub: TokenCheck,
  request: Request,
  ownerName: string,
  name: string,
): Promise<{ owner: User; dataset: Dataset } | undefined> {
  const found = await ownedDataset(hub, ownerName, name);
  return found && !(await hiddenFrom(hub, request, found)) ? found : undefined;
}

/** `?v=`: a revision number as digits, no sign, no leading zero. */
export function revisionParam(request: Request): string | null {
  const asked = request.url.searchParams.get('v');
  if (asked === null) return null;
  if (!isRevisionNumber(asked)) throw new HttpError(400, '"v" must be a revision number');
  return asked;
}

/**
 * The address of a read of `/<owner>/<dataset>/<rest>` at one revision,
 * `/<owner>/<dataset>/v/<N>/<rest>`: the path as it was sent (decoding and encoding it again
 * could change it), the query kept but for `v`.
 */
export function versionedAddress(request: Request, revision: string | number): string {
  const parts = rawSegments(request);
  const query = new URLSearchParams(request.url.search);
  query.delete('v');
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return `/${[...parts.slice(0, 2), 'v', String(revision), ...parts.slice(2)].join('/')}${search}`;
}

/**
 * The segments of a request's path as it was sent, not decoded: an address made of them
 * (another revision's, the name in its own case) keeps the rest of the path as it was asked,
 * where decoding and encoding it again could change it.
 */
export function rawSegments(request: Request): string[] {
  const rawPath = (request.raw.url ?? '/').split('?')[0] ?? '/';
  return rawPath.split('/').filter((part) => part !== '');
}

/** The published revision (or the one `?v=` names, if it succeeded) of a visible dataset. */
export async function published(
  hub: Lookups,
  request: Request,
  ownerName: string,
  name: string,
): Promise<Published> {
  return publishedRevision(hub, request, ownerName, name, revisionParam(request));
}

/** A published revision of owner/name (the published one when `asked` is null), if visible. */
export async function publishedRevision(
  hub: Lookups,
  request: Request,
  ownerName: string,
  name: string,
  asked: string | null,
): Promise<Published> {
  const key = `${ownerName}/${name}/${asked ?? ''}`;
  const cached = hub.lookups.get(key);
  let found =
    cached?.version === hub.store.version ? (cached.value as Published | undefined) : undefined;
  if (!found) {
    found = await lookUp(hub, ownerName, name, asked);
    const bytes =
      (found.revision.descriptor?.length ?? 0) * 3 + (found.revision.files?.length ?? 0) + 1024;
    hub.lookups.set(key, { version: hub.store.version, value: found }, bytes);
  }
  if (await hiddenFrom(hub, request, found)) throw new HttpError(404, 'not found');
  return found;
}

async function lookUp(
  hub: Pick<HubParts, 'store'>,
  ownerName: string,
  name: string,
  asked: string | null,
): Promise<Published> {
  const found = await ownedDataset(hub, ownerName, name);
  if (!found) throw new HttpError(404, 'not found');
  const { owner, dataset } = found;
  const revision = await hub.store.revision(owner.userid, name, asked ?? 'successful');
  const stored = revision && storedPackage(owner, dataset, revision);
  if (!stored) throw new HttpError(404, 'not found');
  return stored;
}
