/**
 * The raw store's objects: their keys (the MD5 of their bytes and the extension of the file
 * they came as), and the taking in of bytes checked against their key, held for their owner
 * within the owner's quota. The routes that receive them are in http/rawstore.ts and
 * http/resumable.ts; the pipeline takes in what was put at presigned URLs.
 */
import { createHash } from 'node:crypto';
import { HttpError } from '../http-error.js';
import type { HubParts } from '../parts.js';
import { objectPath, stagedPath } from '../engines/storage/types.js';

/** Object key: 32 hex digits of the MD5, and the extension of the file it came as. */
export const OBJECT_KEY = /^[0-9a-f]{32}(\.[a-z0-9]{1,10})?$/;

/** Object key: hex MD5 of the bytes plus the file's extension. */
export function objectKey(md5Base64: string, path: string): string {
  return `${Buffer.from(md5Base64, 'base64').toString('hex')}${keyExtension(path)}`;
}

/** The extension of a file's path as a key ends with it: lower case, up to ten characters. */
export function keyExtension(path: string): string {
  return /\.([a-z0-9]{1,10})$/i.exec(path)?.[0]?.toLowerCase() ?? '';
}

/**
 * The object key of a raw store URL. Only the path counts: the hub may have restarted on
 * another port since the URL was made, and presigned URLs carry a query.
 */
export function objectKeyOfUrl(url: string): string | undefined {
  try {
    const match = /^\/rawstore\/objects\/([^/]+)$/.exec(new URL(url).pathname);
    return match?.[1] && OBJECT_KEY.test(match[1]) ? match[1] : undefined;
  } catch {
    return undefined;
  }
}

export function objectsUrl(hub: Pick<HubParts, 'base'>): string {
  return `${hub.base}/rawstore/objects`;
}

export interface FileEntry {
  length: number;
  /** Undefined when the client sends the digest after the bytes (`digest_after`). */
  md5: string | undefined;
  /** The MD5 of the file's first HEAD_BYTES, which a client may give with no `md5`. */
  headMd5: string | undefined;
  type: string;
}

export function quotaMessage(hub: Pick<HubParts, 'options'>): string {
  const limit = hub.options.maxStorageBytes;
  return `Max storage for user exceeded plan limit (${String(Math.round(limit / 1e6))}MB)`;
}

/**
 * What taking bytes in takes: the database (holdings and quotas), the storage, and the
 * operator's limits.
 */
export type Intake = Pick<HubParts, 'options' | 'storage' | 'store'>;

/** What a verified file is stored as, and for whom. */
export interface Verified {
  key: string;
  /** Base64 MD5 of the bytes, checked. */
  md5: string;
  headMd5: string;
  length: number;
  type: string;
  ownerid: string;
  private: boolean;
}

/** Stores a local file whose bytes were checked against their key, and holds it for its owner. */
export async function storeFile(hub: Intake, file: Verified, temporary: string): Promise<void> {
  const { key, ownerid, length, md5 } = file;
  // The bytes are in place before anyone holds them, so that a holding always names
  // stored bytes: another upload of the owner's may say they exist as soon as it is held.
  if ((await hub.store.storageUsed(ownerid)) + length > hub.options.maxStorageBytes)
    throw new HttpError(403, quotaMessage(hub), true);
  await hub.storage.putFile(objectPath(key), temporary, { md5, length, type: file.type });
  // Counted again, atomically, against uploads racing this one. Bytes stored past it stay
  // unheld (their key names them, and a later upload of them is taken as it is).
  if (
    !(await hub.store.addHolding(
      key,
      ownerid,
      length,
      file.private,
      hub.options.maxStorageBytes,
      file.headMd5,
    ))
  )
    throw new HttpError(403, quotaMessage(hub), true);
  // Garbage collection may have removed the same bytes, unheld till now, meanwhile.
  if (!(await hub.storage.stat(objectPath(key))))
    await hub.storage.putFile(objectPath(key), temporary, { md5, length, type: file.type });
}

/**
 * Takes in an object its owner put at a presigned URL: the URL was for the owner's own
 * staging key, with length and Content-MD5 bound into its signature, so bytes there are
 * the owner's and are the key's. The quota counts them from here. False when none is there.
 */
export async function claimStaged(
  hub: Intake,
  ownerid: string,
  key: string,
  isPrivate: boolean,
): Promise<boolean> {
  if (!hub.storage.direct) return false;
  const staged = stagedPath(ownerid, key);
  const info = await hub.storage.stat(staged);
  if (!info) return false;
  if (info.md5 !== undefined && info.md5 !== key.slice(0, 32)) {
    await hub.storage.delete(staged);
    return false;
  }
  await takeIn(hub, { staged, key, ownerid, size: info.size, isPrivate });
  return true;
}

/**
 * Takes in bytes in the store at `staged`, known to be the key's: copied to the object,
 * held for the owner (403 past the quota), and removed from staging.
 */
export async function takeIn(
  hub: Intake,
  upload: { staged: string; key: string; ownerid: string; size: number; isPrivate: boolean },
): Promise<void> {
  const { staged, key } = upload;
  await placeStaged(hub, staged, key);
  // Held only once the object is in place (see receiveFile).
  const held = await hub.store.addHolding(
    key,
    upload.ownerid,
    upload.size,
    upload.isPrivate,
    hub.options.maxStorageBytes,
  );
  // Garbage collection may have removed the same bytes, unheld till now, meanwhile.
  if (held && !(await hub.storage.stat(objectPath(key)))) await placeStaged(hub, staged, key);
  await hub.storage.delete(staged);
  if (!held) throw new HttpError(403, quotaMessage(hub), true);
}

/** Copies a staged upload to its object, unless the object is there already. */
async function placeStaged(
  hub: Pick<HubParts, 'storage'>,
  staged: string,
  key: string,
): Promise<void> {
  if (await hub.storage.stat(objectPath(key))) return;
  try {
    await hub.storage.copy(staged, objectPath(key));
  } catch (error) {
    // The owner's other publication may have taken the same upload in meanwhile (and
    // removed it from staging): then the object is there.
    if (!(await hub.storage.stat(objectPath(key)))) throw error;
  }
}

/**
 * A credential limited to some datasets (a named token's `datasets`, a trusted publisher's)
 * publishes in its dataset only objects it sent for it, or that the dataset's own revisions
 * name: an object is named by its digest, and any other object of the owner's it could name
 * by a digest it knows (of another dataset, maybe private) and read it published in its own.
 * What it sent is remembered with the ids the hub remembers until they expire (the revoked
 * tokens' table, as traded ID tokens are), a day: longer than a publication's uploads take.
 */
const SENT_SECONDS = 86_400;

function sentId(ownerid: string, dataset: string, key: string): string {
  const named = `${ownerid}\n${dataset.toLowerCase()}\n${key}`;
  return `sent:${createHash('sha256').update(named).digest('hex')}`;
}

/** Remembers that a limited credential sent these bytes for the owner's dataset. */
export async function rememberSent(
  hub: Pick<HubParts, 'store'>,
  sent: { ownerid: string; dataset: string; key: string },
): Promise<void> {
  const expires = Math.floor(Date.now() / 1000) + SENT_SECONDS;
  await hub.store.remember(sentId(sent.ownerid, sent.dataset, sent.key), expires);
}

/** Whether a limited credential sent these bytes for the owner's dataset (within a day). */
export async function wasSent(
  hub: Pick<HubParts, 'store'>,
  sent: { ownerid: string; dataset: string; key: string },
): Promise<boolean> {
  return await hub.store.remembers(sentId(sent.ownerid, sent.dataset, sent.key));
}

/**
 * The objects a dataset's own revisions name (the latest and the latest that succeeded):
 * what a credential limited to it may be told the owner holds, and may publish unsent.
 */
export async function datasetObjects(
  hub: Pick<HubParts, 'store'>,
  ownerid: string,
  name: string,
): Promise<Set<string>> {
  const keys = new Set<string>();
  const [dataset] = await hub.store.datasetsInAnyCase(ownerid, name);
  if (!dataset) return keys;
  for (const which of ['latest', 'successful']) {
    const files = (await hub.store.revision(ownerid, dataset.name, which))?.files;
    if (!files) continue;
    for (const key of Object.values(JSON.parse(files) as Record<string, unknown>))
      if (typeof key === 'string') keys.add(key);
  }
  return keys;
}
