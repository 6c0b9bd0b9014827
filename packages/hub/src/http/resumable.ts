/**
 * Uploads that go on where they broke off (an extension of the protocol, offered to a
 * client that lists `PARTS` among its upload methods). The hub gives a session address;
 * its GET says what is still to send and where, a part at a time, and its POST, once all is
 * there, checks the whole file's digest before the bytes count as uploaded. On a store that
 * takes uploads itself (S3), the parts are the store's own multipart upload, put at presigned
 * addresses; on a folder, the hub writes the bytes into a partial file at an offset.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { BytesDigest, digestOf, type Digest } from '../services/bytes-digest.js';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import { isObject, readJson, sendJson, type Request } from './request.js';
import {
  objectKey,
  objectsUrl,
  rememberSent,
  storeFile,
  takeIn,
  type FileEntry,
} from '../services/objects.js';
import {
  PartialWriteError,
  resumablePath,
  type MultipartUploads,
  type PartialFiles,
} from '../engines/storage/types.js';
import { hmac, sameSecret } from '../services/tokens.js';
import { BoundedCache } from '../bounded-cache.js';

/** Smaller files are sent again whole sooner than they would be resumed. */
const RESUMABLE_MIN_BYTES = 8 * 1024 * 1024;

const SESSION_SECONDS = 3600;
const MIB = 1024 * 1024;
/** The most parts one answer presigns: a client asks again for the rest. */
const PARTS_AT_ONCE = 100;

/** What a session's signature binds. */
interface Session {
  kind: 'resumable';
  /** The object key, when the digest is known; else the digest follows the bytes. */
  key: string | undefined;
  md5: string | undefined;
  /** Hex MD5 of the first bytes, naming a partial upload whose digest is not known yet. */
  head: string | undefined;
  extension: string;
  length: number;
  type: string;
  ownerid: string;
  private: boolean;
  expires: number;
  /**
   * Begun for a credential limited to some datasets: the session is not told, nor taken as
   * done, by what the owner holds already, which would say whether the owner holds bytes
   * of a digest the credential knows (rawstore.ts's `exists`). Its bytes are all sent.
   */
  limited?: true;
  /** Of a limited credential: the dataset the bytes are sent for (services/objects.ts). */
  dataset?: string;
}

/**
 * The entry of a file that may be uploaded in parts, or undefined where it may not: a small
 * one, a store that keeps no partial uploads, or no digest of any kind to name it by.
 */
export async function resumableEntry(
  hub: Hub,
  form: {
    userid: string;
    isPrivate: boolean;
    expires: number;
    limited?: boolean;
    dataset?: string | undefined;
  },
  entry: FileEntry,
  keyOrExtension: string,
): Promise<{ upload_method: 'PARTS'; upload_url: string } | undefined> {
  if (entry.length < RESUMABLE_MIN_BYTES) return undefined;
  const known = entry.md5 !== undefined;
  const multipart = known && (await takesMultipart(hub));
  if (!multipart && !hub.storage.partial) return undefined;
  if (!known && entry.headMd5 === undefined) return undefined;
  const session: Session = {
    kind: 'resumable',
    key: known ? keyOrExtension : undefined,
    md5: entry.md5,
    head: known ? undefined : Buffer.from(entry.headMd5 ?? '', 'base64').toString('hex'),
    extension: known ? (/\.[a-z0-9]+$/.exec(keyOrExtension)?.[0] ?? '') : keyOrExtension,
    length: entry.length,
    type: entry.type,
    ownerid: form.userid,
    private: form.isPrivate,
    expires: Math.floor(Date.now() / 1000) + SESSION_SECONDS,
    ...(form.limited ? { limited: true as const, dataset: form.dataset ?? '' } : {}),
  };
  const encoded = Buffer.from(JSON.stringify(session)).toString('base64url');
  return { upload_method: 'PARTS', upload_url: sessionUrl(hub, encoded) };
}

const refusalsLogged = new WeakSet<Hub>();

/** Whether the store takes multipart uploads now; its refusal for good is logged once. */
async function takesMultipart(hub: Hub): Promise<boolean> {
  const support = await hub.storage.multipart?.supported();
  if (support?.refusal !== undefined && !refusalsLogged.has(hub)) {
    refusalsLogged.add(hub);
    hub.log(
      `the store refuses multipart uploads (${support.refusal}): large files are uploaded whole, none goes on after a break`,
    );
  }
  return support?.takes ?? false;
}

function sessionUrl(hub: Hub, encoded: string, offset?: number): string {
  const query = new URLSearchParams({ session: encoded, signature: signatureOf(hub, encoded) });
  if (offset !== undefined) query.set('offset', String(offset));
  return `${hub.base}/rawstore/uploads?${query.toString()}`;
}

function signatureOf(hub: Hub, encoded: string): string {
  return hmac(hub.keys, `resumable:${encoded}`);
}

function sessionOf(hub: Hub, request: Request): Session & { encoded: string } {
  const encoded = request.url.searchParams.get('session') ?? '';
  const signature = request.url.searchParams.get('signature') ?? '';
  if (!encoded || !sameSecret(signature, signatureOf(hub, encoded)))
    throw new HttpError(403, 'the upload signature does not match its session');
  const session = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Session;
  if (session.kind !== 'resumable') throw new HttpError(403, 'not an upload session');
  if (session.expires * 1000 < Date.now())
    throw new HttpError(403, 'the upload session has expired');
  return { ...session, encoded };
}

/**
 * Where the session's bytes gather: named by the digest, or by length and head without it.
 * On a store of multipart uploads, the folder of the uploads begun for it, each at its own key.
 * A limited credential's gather apart, by its dataset: else its session would be told of, and
 * completed with, bytes of the same digest that another upload of the owner's left there.
 */
function gatheredAt(session: Session): string {
  const name =
    session.key ?? `head-${session.head ?? ''}-${String(session.length)}${session.extension}`;
  if (session.dataset === undefined) return resumablePath(session.ownerid, name);
  const apart = createHash('sha256').update(session.dataset.toLowerCase()).digest('hex');
  return resumablePath(session.ownerid, `for-${apart.slice(0, 16)}-${name}`);
}

/** Parts of at least 5 MiB (S3's least but for the last), and at most 10,000 of them. */
function partSize(length: number): number {
  return Math.max(5, Math.ceil(length / 10_000 / MIB)) * MIB;
}

interface PartToSend {
  start: number;
  end: number;
  url: string;
}

/** `GET`: what the store holds of the upload, and the parts still to send, each with its address. */
export async function plan(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const session = sessionOf(hub, request);
  // Held already (the owner's other publication of the file completed it): nothing to send.
  if (
    session.key !== undefined &&
    !session.limited &&
    (await hub.store.holds(session.ownerid, session.key))
  )
    return sendJson(response, 200, { length: session.length, held: session.length, parts: [] });
  const at = gatheredAt(session);
  const { multipart, partial } = hub.storage;
  if (multipart && session.key !== undefined) {
    const { held, parts } = (await planParts(multipart, session, at)) ?? { held: 0, parts: [] };
    return sendJson(response, 200, { length: session.length, held, parts });
  }
  if (!partial) throw new HttpError(404, 'this hub keeps no partial uploads');
  let held = await partial.size(at);
  if (held > session.length) {
    const taken = await takePartial(partial, at);
    if (taken) await rm(taken.path, { force: true });
    held = 0;
  }
  const parts =
    held < session.length
      ? [{ start: held, end: session.length, url: sessionUrl(hub, session.encoded, held) }]
      : [];
  sendJson(response, 200, { length: session.length, held, parts });
}

async function planParts(
  multipart: MultipartUploads,
  session: Session,
  at: string,
  create = true,
): Promise<{ key: string; uploadId: string; held: number; parts: PartToSend[] } | undefined> {
  const size = partSize(session.length);
  const upload = await multipart.open(at, session.type, create);
  if (!upload) return undefined;
  const { key, uploadId, parts } = upload;
  const count = Math.max(1, Math.ceil(session.length / size));
  const expected = (number: number) =>
    Math.min(session.length, number * size) - (number - 1) * size;
  const whole = new Set(
    parts.filter((part) => part.size === expected(part.number)).map((part) => part.number),
  );
  let held = 0;
  const missing: number[] = [];
  for (let number = 1; number <= count; number++)
    if (whole.has(number)) held += expected(number);
    else if (missing.length < PARTS_AT_ONCE) missing.push(number);
  const toSend = await Promise.all(
    missing.map(async (number) => ({
      start: (number - 1) * size,
      end: (number - 1) * size + expected(number),
      url: await multipart.presignPart(key, uploadId, number, expected(number), SESSION_SECONDS),
    })),
  );
  return { key, uploadId, held, parts: toSend };
}

/** `PUT …&offset=N`: bytes of a partial upload the hub writes itself (a folder). */
export async function write(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const session = sessionOf(hub, request);
  const partial = hub.storage.partial;
  if (!partial || (hub.storage.multipart && session.key !== undefined))
    throw new HttpError(405, 'parts of this upload go to the store itself');
  const offset = Number(request.url.searchParams.get('offset'));
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > session.length)
    throw new HttpError(400, '"offset" must be a whole number of bytes within the file');
  const at = gatheredAt(session);
  // A write of the whole file from its first byte takes its digest on the way.
  const digest = offset === 0 ? new BytesDigest() : undefined;
  const body = request.raw as AsyncIterable<Buffer>;
  const written = await refusedAsHttp(() =>
    partial.write(at, offset, digest ? digest.through(body) : body, session.length),
  );
  const whole = written.alone && written.held === session.length;
  if (digest && whole && digest.length === session.length)
    digestsOf(hub).set(at, { stamp: written.stamp, ...digest.result() }, 256 + at.length);
  sendJson(response, 200, { held: written.held });
}

/**
 * The digests of partial files written whole by one write alone, by the write's stamp: if
 * the file taken to be checked has the same, no other write went into it, and it is not read
 * again. A few hundred at most: one more is read again.
 */
const wholeWrites = new WeakMap<Hub, BoundedCache<Digest & { stamp: number }>>();

function digestsOf(hub: Hub): BoundedCache<Digest & { stamp: number }> {
  let digests = wholeWrites.get(hub);
  if (!digests) wholeWrites.set(hub, (digests = new BoundedCache(256 * 1024)));
  return digests;
}

function takePartial(
  partial: PartialFiles,
  at: string,
): Promise<{ path: string; stamp: number } | undefined> {
  return refusedAsHttp(() => partial.take(at));
}

/** A partial file's refusal as the answer it is. */
async function refusedAsHttp<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PartialWriteError) throw new HttpError(error.status, error.message);
    throw error;
  }
}

/**
 * `POST`: the upload is whole. Its digest is checked (the session's, or for one signed
 * without it the `md5` the body gives) before it is stored and held; a file that does not
 * match is dropped, to be sent again. Answers the stored object's `object_url` and `md5`.
 */
export async function complete(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const session = sessionOf(hub, request);
  const body = await readJson(request);
  const claimed = isObject(body) && typeof body.md5 === 'string' ? body.md5 : undefined;
  const md5 = session.md5 ?? claimed;
  if (md5 === undefined || Buffer.from(md5, 'base64').length !== 16)
    throw new HttpError(400, 'the upload needs its "md5": the base64 of its MD5 digest');
  const key = session.key ?? objectKey(md5, session.extension);
  const stored = () => sendJson(response, 200, { object_url: `${objectsUrl(hub)}/${key}`, md5 });
  // Asked again after an answer that was lost: it is done.
  if (!session.limited && (await hub.store.holds(session.ownerid, key))) return stored();
  const { multipart, partial } = hub.storage;
  if (multipart && session.key !== undefined) await completeParts(hub, multipart, session, md5);
  else if (partial) await completePartial(hub, session, md5, key);
  else throw new HttpError(404, 'this hub keeps no partial uploads');
  if (session.dataset !== undefined)
    await rememberSent(hub, { ownerid: session.ownerid, dataset: session.dataset, key });
  stored();
}

async function completePartial(
  hub: Hub,
  session: Session,
  md5: string,
  key: string,
): Promise<void> {
  const partial = hub.storage.partial;
  const at = gatheredAt(session);
  if (!partial || (await partial.size(at)) !== session.length)
    throw new HttpError(409, 'the upload is not whole yet: ask what it holds and send the rest');
  const taken = await takePartial(partial, at);
  if (!taken) throw new HttpError(409, 'the upload is not whole yet');
  const known = digestsOf(hub).get(at);
  digestsOf(hub).delete(at);
  try {
    const digest =
      known?.stamp === taken.stamp
        ? known
        : await digestOf(createReadStream(taken.path, { highWaterMark: 1 << 20 }));
    if (digest.length !== session.length || digest.md5 !== md5)
      throw new HttpError(400, 'the bytes received do not match their MD5: send the file again');
    await storeFile(
      hub,
      {
        key,
        md5,
        headMd5: digest.headMd5,
        length: session.length,
        type: session.type,
        ownerid: session.ownerid,
        private: session.private,
      },
      taken.path,
    );
  } finally {
    await rm(taken.path, { force: true });
  }
}

async function completeParts(
  hub: Hub,
  multipart: MultipartUploads,
  session: Session,
  md5: string,
): Promise<void> {
  const at = gatheredAt(session);
  // Not begun here: one gone meanwhile was completed by another request, or aborted.
  const upload = await planParts(multipart, session, at, false);
  if (!upload || upload.parts.length > 0 || upload.held !== session.length)
    throw new HttpError(409, 'the upload is not whole yet: ask what it holds and send the rest');
  // The upload's key is its own: no other completion writes there between check and take.
  await multipart.complete(upload.key, upload.uploadId);
  // The store checked each part on its own: the whole is checked here, before it counts.
  const digest = await digestOf(await hub.storage.read(upload.key));
  if (digest.length !== session.length || digest.md5 !== md5) {
    await hub.storage.delete(upload.key);
    throw new HttpError(400, 'the bytes received do not match their MD5: send the file again');
  }
  await takeIn(hub, {
    staged: upload.key,
    key: session.key ?? '',
    ownerid: session.ownerid,
    size: session.length,
    isPrivate: session.private,
  });
}
