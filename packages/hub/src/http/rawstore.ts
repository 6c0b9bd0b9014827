/**
 * The raw store's routes: upload forms signed by the hub (`/rawstore/authorize`), the uploads
 * they allow (`/rawstore/objects`, a form of S3's POST policy), presigned reads of a caller's
 * own objects, and those reads. Bytes are taken in by services/objects.ts.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import busboy from 'busboy';
import { ALGORITHM_FIELD, CRC32_FIELD, counted, crc32Base64, DATASET_NAME } from '@data/core';
import { BytesDigest } from '../services/bytes-digest.js';
import type { Hub } from '../context.js';
import { callerOf, serviceCaller } from './callers.js';
import { credentialRefusal, may } from '../services/access.js';
import { HttpError } from '../http-error.js';
import { isObject, readJson, sendJson, sendText, type Request } from './request.js';
import { sendStored } from './send-file.js';
import { objectPath, stagedPath } from '../engines/storage/types.js';
import { hmac, sameSecret } from '../services/tokens.js';
import { resumableEntry } from './resumable.js';
import {
  claimStaged,
  keyExtension,
  OBJECT_KEY,
  objectKey,
  objectsUrl,
  quotaMessage,
  datasetObjects,
  rememberSent,
  storeFile,
  type FileEntry,
  type Intake,
} from '../services/objects.js';

const POLICY_SECONDS = 3600;

/**
 * What an upload form's signature binds. A form for bytes whose digest comes after them
 * (`md5` undefined) binds no key: the key is the digest of the bytes received, with
 * `extension`, and the digest must also follow the file in the form.
 */
interface Policy {
  key: string;
  md5: string | undefined;
  extension?: string;
  length: number;
  type: string;
  ownerid: string;
  private: boolean;
  expires: number;
  /** The dataset a credential limited to datasets sends the bytes for (services/objects.ts). */
  dataset?: string;
}

function isMd5(value: unknown): value is string {
  return typeof value === 'string' && Buffer.from(value, 'base64').length === 16;
}

function fileEntry(path: string, value: unknown, digestAfter: boolean): FileEntry {
  if (!isObject(value)) throw new HttpError(400, `filedata "${path}" must be an object`);
  const { length, md5, head_md5: headMd5, type } = value;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)
    throw new HttpError(400, `filedata "${path}": "length" must be a whole number of bytes`);
  const later = md5 === undefined && digestAfter;
  if (!later && !isMd5(md5))
    throw new HttpError(400, `filedata "${path}": "md5" must be the base64 of an MD5 digest`);
  if (headMd5 !== undefined && !isMd5(headMd5))
    throw new HttpError(400, `filedata "${path}": "head_md5" must be the base64 of an MD5 digest`);
  return {
    length,
    md5: later ? undefined : String(md5),
    headMd5,
    type: typeof type === 'string' && type !== '' ? type : 'application/octet-stream',
  };
}

export async function authorize(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const caller = await serviceCaller(hub, request, 'rawstore');
  if (!caller) throw new HttpError(401, 'a valid rawstore service token is required');
  const body = await readJson(request);
  if (!isObject(body) || !isObject(body.metadata) || !isObject(body.filedata))
    throw new HttpError(400, 'the body needs "metadata" and "filedata" objects');
  const { owner, dataset } = body.metadata;
  if (dataset !== undefined && (typeof dataset !== 'string' || !DATASET_NAME.test(dataset)))
    throw new HttpError(400, '"metadata.dataset" must be a dataset name');
  // A credential limited to some datasets uploads only for one of them, named: the objects
  // are the owner's, so an upload for no dataset would write outside its list.
  const limited = caller.datasets.length > 0;
  if (limited && dataset === undefined)
    throw new HttpError(
      403,
      'this token may publish only the datasets it was made for: name the one the files are for in "metadata.dataset"',
    );
  // The files are held by, and counted against, the owner: the caller itself or an
  // organisation the caller may publish to.
  // A valid credential that may not publish there is refused (403): signing in again
  // would not help, so it is not a 401. The credential's own limit is named first.
  if (
    typeof owner !== 'string' ||
    !(await may(hub.store.organisations, caller, 'publish', owner, dataset))
  ) {
    const name = (typeof owner === 'string' && (await hub.store.userById(owner))?.username) || '';
    throw new HttpError(
      403,
      (typeof owner === 'string' &&
        credentialRefusal(
          caller,
          'publish',
          owner,
          dataset,
          dataset === undefined ? `the datasets of ${name}` : `${name}/${dataset}`,
        )) ||
        '"metadata.owner" is not the owner of the token, nor an organisation it may publish to',
    );
  }
  const userid = owner;
  // What a limited credential is told exists: only what its dataset's own revisions name.
  // Told of any object of the owner's, it could learn whether the owner holds bytes of a
  // digest it knows (of another dataset, maybe private). Sending such a file again is safe.
  const shown = limited ? await datasetObjects(hub, owner, dataset ?? '') : undefined;
  const isPrivate = body.metadata.findability === 'private';
  const methods: unknown[] = Array.isArray(body.upload_methods) ? body.upload_methods : [];
  // A limited credential's bytes come through the hub, which remembers them sent for its
  // dataset: put at a presigned address, they would be the owner's with no word of by whom.
  const canPut = !limited && methods.includes('PUT') && hub.storage.direct;
  const canResume = methods.includes('PARTS');
  const digestAfter = body.digest_after === true;
  const entries = await Promise.all(
    Object.entries(body.filedata).map(async ([path, value]) => {
      const entry = fileEntry(path, value, digestAfter);
      if (entry.md5 === undefined) return { path, entry, key: undefined, exists: false };
      const key = objectKey(entry.md5, path);
      if (shown && !shown.has(key)) return { path, entry, key, exists: false };
      // `exists` speaks of the caller's own objects only: whether anyone else stored the
      // same bytes is not the caller's business, and an upload of them is still needed.
      const held = await hub.store.holds(userid, key);
      // Told it exists, the client will not send it: used now, so that garbage collection,
      // which keeps what was used within its grace, leaves it for the flow spec to come.
      if (held) await hub.store.touchHolding(userid, key);
      const exists = held || (await claimStaged(hub, userid, key, isPrivate));
      return { path, entry, key, exists };
    }),
  );
  const needed = entries
    .filter((file) => !file.exists)
    .reduce((sum, file) => sum + file.entry.length, 0);
  // Early word only: the quota is enforced on the bytes stored, when each upload lands.
  if ((await hub.store.storageUsed(userid)) + needed > hub.options.maxStorageBytes)
    return sendText(response, 403, quotaMessage(hub));
  const filedata: Record<string, unknown> = {};
  const expires = Math.floor(Date.now() / 1000) + POLICY_SECONDS;
  const form = { userid, isPrivate, expires, limited, ...(limited ? { dataset } : {}) };
  for (const { path, entry, key, exists } of entries) {
    if (key === undefined || entry.md5 === undefined) {
      // A store that takes uploads itself would get these bytes through the hub, a detour
      // that costs more than the client's digest: the client hashes first. Else
      // `may_exist` false lets the client skip hashing: of the caller's own objects, none
      // has this length and head, so none can be this file.
      filedata[path] = hub.storage.direct
        ? { digest: 'first' }
        : {
            digest: 'after',
            // A limited credential is told nothing of the owner's objects (see `shown`).
            may_exist: limited || (await hub.store.mayHold(userid, entry.length, entry.headMd5)),
            ...postForm(hub, form, entry, keyExtension(path)),
            ...(canResume ? await resumableEntry(hub, form, entry, keyExtension(path)) : {}),
          };
      continue;
    }
    await hub.store.recordUpload(userid, path, key);
    const objectUrl = `${objectsUrl(hub)}/${key}`;
    const resumable =
      canResume && !exists ? await resumableEntry(hub, form, entry, key) : undefined;
    if (resumable) {
      filedata[path] = { ...resumable, upload_query: { key }, object_url: objectUrl, exists };
      continue;
    }
    if (canPut) {
      const put = await canPut.presignPut(
        stagedPath(userid, key),
        { ...entry, md5: entry.md5 },
        POLICY_SECONDS,
      );
      filedata[path] = {
        upload_method: 'PUT',
        upload_url: put.url,
        upload_headers: put.headers,
        upload_query: { key },
        object_url: objectUrl,
        exists,
      };
      continue;
    }
    filedata[path] = { ...postForm(hub, form, entry, key), object_url: objectUrl, exists };
  }
  sendJson(response, 200, { filedata });
}

/**
 * A signed POST form. With the digest known, it binds the key and the digest; else it
 * binds the extension the key will end with, and the digest follows the file.
 */
function postForm(
  hub: Pick<Hub, 'base' | 'keys'>,
  form: { userid: string; isPrivate: boolean; expires: number; dataset?: string | undefined },
  entry: FileEntry,
  keyOrExtension: string,
): { upload_url: string; upload_query: Record<string, string> } {
  const known = entry.md5 !== undefined;
  const policy: Policy = {
    key: known ? keyOrExtension : '',
    md5: entry.md5,
    ...(known ? {} : { extension: keyOrExtension }),
    length: entry.length,
    type: entry.type,
    ownerid: form.userid,
    private: form.isPrivate,
    expires: form.expires,
    ...(form.dataset === undefined ? {} : { dataset: form.dataset }),
  };
  const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
  return {
    upload_url: objectsUrl(hub),
    upload_query: {
      ...(known ? { key: keyOrExtension } : {}),
      acl: form.isPrivate ? 'private' : 'public-read',
      ...(entry.md5 === undefined ? {} : { 'Content-MD5': entry.md5 }),
      'Content-Type': entry.type,
      Policy: encoded,
      Signature: hmac(hub.keys, encoded),
    },
  };
}

function checkPolicy(hub: Pick<Hub, 'keys'>, fields: Map<string, string>): Policy {
  const encoded = fields.get('Policy') ?? '';
  const signature = fields.get('Signature') ?? '';
  if (!encoded || !sameSecret(signature, hmac(hub.keys, encoded)))
    throw new HttpError(403, 'the upload signature does not match its policy');
  const policy = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Policy;
  const digestAfter = policy.md5 === undefined;
  if (
    digestAfter
      ? !/^(\.[a-z0-9]{1,10})?$/.test(policy.extension ?? '')
      : !OBJECT_KEY.test(policy.key)
  )
    throw new HttpError(403, 'the upload policy is not valid');
  if (policy.expires * 1000 < Date.now()) throw new HttpError(403, 'the upload policy has expired');
  if (
    (digestAfter ? fields.has('key') : fields.get('key') !== policy.key) ||
    fields.get('Content-MD5') !== policy.md5 ||
    fields.has(CRC32_FIELD) ||
    (fields.has(ALGORITHM_FIELD) && (!digestAfter || fields.get(ALGORITHM_FIELD) !== 'CRC32')) ||
    fields.get('Content-Type') !== policy.type
  ) {
    throw new HttpError(403, 'the form fields do not match the signed policy');
  }
  return policy;
}

interface Meter {
  transform: Transform;
  length: () => number;
  md5: () => string;
  /** The MD5 of the first HEAD_BYTES. */
  headMd5: () => string;
  crc32: () => string;
}

/**
 * Counts and hashes bytes on their way to disk, refusing more than the policy allows; with
 * `withCrc`, also takes their CRC32.
 */
function meter(limit: number, withCrc: boolean): Meter {
  const digest = new BytesDigest();
  let crc = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (digest.length + chunk.length > limit)
        return callback(new HttpError(400, 'more bytes than the declared length'));
      digest.add(chunk);
      if (withCrc) crc = crc32(chunk, crc);
      callback(null, chunk);
    },
  });
  return {
    transform,
    length: () => digest.length,
    md5: () => digest.result().md5,
    headMd5: () => digest.result().headMd5,
    crc32: () => crc32Base64(crc),
  };
}

/** An upload's bytes, in a temporary file of the hub's, with their digest. */
interface Received {
  policy: Policy;
  temporary: string;
  md5: string;
  headMd5: string;
  /** Taken only when the form announced a CRC32 before the file. */
  crc32: string | undefined;
}

/** Writes the form's file to a temporary file, checking its policy and its length. */
async function receiveFile(
  hub: Pick<Hub, 'keys'>,
  stream: Readable,
  fields: Map<string, string>,
  temporary: string,
): Promise<Received> {
  let policy: Policy;
  try {
    policy = checkPolicy(hub, fields);
  } catch (error) {
    stream.resume();
    throw error;
  }
  // Announced before the file, so that only the uploads that send a CRC32 cost the hub one.
  const withCrc = fields.get(ALGORITHM_FIELD) === 'CRC32';
  const counter = meter(policy.length, withCrc);
  await pipeline(stream, counter.transform, createWriteStream(temporary, { flags: 'wx' }));
  if (counter.length() !== policy.length)
    throw new HttpError(
      400,
      `received ${counted(counter.length(), 'byte')}, the policy says ${String(policy.length)}`,
    );
  return {
    policy,
    temporary,
    md5: counter.md5(),
    headMd5: counter.headMd5(),
    crc32: withCrc ? counter.crc32() : undefined,
  };
}

/**
 * Stores received bytes under their content key, once their digest matches the one the
 * policy binds or, for a form signed without it, the checksums that follow the file.
 * Returns the key.
 */
async function storeReceived(
  hub: Intake,
  { policy, temporary, md5, headMd5, crc32: crc }: Received,
  fields: Map<string, string>,
): Promise<string> {
  checkDigests(policy, fields, md5, crc);
  const key = policy.md5 === undefined ? objectKey(md5, policy.extension ?? '') : policy.key;
  await storeFile(hub, { ...policy, key, md5, headMd5 }, temporary);
  return key;
}

/**
 * A form signed with the digest: the bytes must match it. Else the file is followed by
 * `Content-MD5`, its CRC32 (cheaper for the client to take as it sends; announced before
 * the file), or both: each one sent must match.
 */
function checkDigests(
  policy: Policy,
  fields: Map<string, string>,
  md5: string,
  crc: string | undefined,
): void {
  const claimedMd5 = policy.md5 ?? fields.get('Content-MD5');
  const claimedCrc = fields.get(CRC32_FIELD);
  if (policy.md5 !== undefined && claimedCrc !== undefined)
    throw new HttpError(400, `"${CRC32_FIELD}" is taken only on forms signed without a digest`);
  if (claimedMd5 === undefined && claimedCrc === undefined)
    throw new HttpError(
      400,
      `the form needs a "Content-MD5" or "${CRC32_FIELD}" field after the file`,
    );
  if (claimedMd5 !== undefined && md5 !== claimedMd5)
    throw new HttpError(400, 'the bytes received do not match Content-MD5');
  if (claimedCrc !== undefined && crc === undefined)
    throw new HttpError(400, `"${CRC32_FIELD}" needs "${ALGORITHM_FIELD}: CRC32" before the file`);
  if (claimedCrc !== undefined && crc !== claimedCrc)
    throw new HttpError(400, `the bytes received do not match ${CRC32_FIELD}`);
}

/**
 * Takes a signed form's upload. The file is written while the form streams in; it is
 * stored once the whole form is read, as a digest may follow the file. A form whose
 * digest came after the file is answered with the stored object's URL.
 */
export async function upload(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const temporary = join(hub.tmpDir, `${randomBytes(12).toString('hex')}.part`);
  try {
    const { received, fields } = await readForm(hub, request, temporary);
    const key = await storeReceived(hub, received, fields);
    const { ownerid, dataset } = received.policy;
    if (dataset !== undefined) await rememberSent(hub, { ownerid, dataset, key });
    if (received.policy.md5 !== undefined) return void response.writeHead(204).end();
    sendJson(response, 200, { object_url: `${objectsUrl(hub)}/${key}`, md5: received.md5 });
  } finally {
    await rm(temporary, { force: true });
  }
}

function readForm(
  hub: Pick<Hub, 'keys'>,
  request: Request,
  temporary: string,
): Promise<{ received: Received; fields: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.raw.headers,
        limits: { files: 1, fields: 20, fieldSize: 64 * 1024 },
      });
    } catch {
      reject(new HttpError(400, 'expected a multipart/form-data upload'));
      return;
    }
    const fields = new Map<string, string>();
    let received: Promise<Received> | undefined;
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (name, stream) => {
      if (name !== 'file' || received) return void stream.resume();
      received = receiveFile(hub, stream, fields, temporary);
      received.catch((error: unknown) => {
        request.raw.unpipe(parser);
        request.raw.resume();
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
    parser.on('error', () => reject(new HttpError(400, 'malformed multipart body')));
    parser.on('close', () => {
      if (!received) return reject(new HttpError(400, 'the form has no "file" field'));
      received.then((file) => resolve({ received: file, fields }), reject);
    });
    request.raw.on('error', reject);
    request.raw.pipe(parser);
  });
}

function presignature(hub: Pick<Hub, 'keys'>, key: string, expires: number): string {
  return hmac(hub.keys, `object:${key}:${String(expires)}`);
}

export async function presign(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const who =
    (await serviceCaller(hub, request, 'rawstore')) ??
    (await serviceCaller(hub, request, 'source')) ??
    (await callerOf(hub, request));
  if (!who) throw new HttpError(401, 'a valid token is required');
  // Objects are the owner's, not a dataset's: a credential limited to some datasets (a
  // publish token, a trusted publisher's) would read any of them given its key. It needs
  // none: the hub reads the uploads it publishes by their keys.
  if (who.datasets.length > 0)
    throw new HttpError(
      403,
      'a token limited to datasets gets no presigned URLs: name the objects by their plain URLs',
    );
  // Ours: `ownerid`, whose objects to presign (an organisation the caller publishes to);
  // the caller's own without it. Another owner's objects are not there for the caller.
  const caller = request.url.searchParams.get('ownerid') || who.userid;
  if (!(await may(hub.store.organisations, who, 'publish', caller)))
    throw new HttpError(404, 'not found');
  const target = request.url.searchParams.get('url') ?? '';
  const prefix = `${objectsUrl(hub)}/`;
  if (!target.startsWith(prefix)) throw new HttpError(400, '"url" is not an object of this hub');
  const key = target.slice(prefix.length);
  // Keys are content digests, known to anyone who knows the bytes' MD5: a key is no proof
  // of anything, so the hub presigns only objects the caller stored, and serves raw objects
  // only at presigned URLs. Published data is read at the dataset's own addresses.
  // An object put at a presigned URL is taken in here, when the client first names it.
  const held =
    (await hub.store.holds(caller, key)) ||
    (OBJECT_KEY.test(key) && (await claimStaged(hub, caller, key, true)));
  if (!held) throw new HttpError(404, 'not found');
  const expires = Math.floor(Date.now() / 1000) + POLICY_SECONDS;
  sendJson(response, 200, {
    url: `${target}?expires=${String(expires)}&signature=${presignature(hub, key, expires)}`,
  });
}

export async function object(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  key: string,
): Promise<void> {
  const expires = Number(request.url.searchParams.get('expires'));
  const signature = request.url.searchParams.get('signature') ?? '';
  const signed =
    expires * 1000 > Date.now() && sameSecret(signature, presignature(hub, key, expires));
  if (!signed || !(await hub.store.hasObject(key))) throw new HttpError(404, 'not found');
  await sendStored(request.raw, response, hub.storage, objectPath(key), {
    name: key,
    etag: key.replace(/\..*$/, ''),
  });
}
