import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError, ServerError } from '@data/core';
import { fileDigest, headDigest } from '@data/core';
import { CRC32_FIELD } from '@data/core';
import { uploadFile, type Trailer, type Upload } from '../transfers/upload.js';
import type { HubApi, UploadTarget } from './api.js';
import type { HttpFetch } from '@data/core';
import { limiter } from '@data/core';

export interface PackageFile {
  path: string;
  /** The resource the file belongs to. */
  name: string;
  /** Where the bytes are read from, when not at `path` in the package folder. */
  source?: string;
}

export interface StagedFile extends PackageFile {
  length: number;
  md5: string;
  target: UploadTarget;
}

export type StageEvent =
  | { type: 'plan'; files: { path: string; bytes: number | undefined }[] }
  /** A file being hashed: with the bytes read of its size as it goes. */
  | { type: 'hashing'; path: string; read?: number; bytes?: number }
  | { type: 'file'; path: string; bytes: number; exists: boolean }
  | { type: 'progress'; path: string; sent: number; bytes: number }
  | { type: 'uploaded'; path: string };

export interface StageOptions {
  dir: string;
  api: HubApi;
  fetch: HttpFetch;
  rawstoreToken: string;
  /** `dataset`: the one the files are for (a token limited to datasets needs it named). */
  metadata: { owner: string; findability: string; dataset?: string };
  concurrency: number;
  signal?: AbortSignal | undefined;
  onEvent?: (event: StageEvent) => void;
}

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export function typeOf(path: string): string {
  return (
    TYPES[/\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ''] ?? 'application/octet-stream'
  );
}

/**
 * In parts that go on where a broken upload stopped, where the hub offers it for a file;
 * else, where the hub's store takes uploads itself, there without a detour; else a form.
 */
const UPLOAD_METHODS = ['PARTS', 'PUT', 'POST'];

/** Smaller files gain too little from starting before their digest to be worth a request. */
const EARLY_MIN_BYTES = 8 * 1024 * 1024;

/** An upload started before its file's digest was known, the digest to follow it (see startEarly). */
interface EarlyUpload {
  length: number;
  cancel: AbortController;
  /** True once the bytes are stored; false when cancelled or failed (the failure is reported). */
  stored: Promise<boolean>;
}

/**
 * Hashes the files one after another; each time the hub is free it authorizes every file
 * hashed so far, and those it does not hold yet start uploading while the next are hashed.
 * Where the hub takes a digest after the bytes, the first large files start uploading at
 * once: those it cannot hold (it holds nothing of their length and first 64 KiB) with no
 * hashing at all, the others cancelled if their digest shows the hub holds them. The first
 * failure stops everything still running and is thrown.
 */
export async function stageFiles(
  files: PackageFile[],
  options: StageOptions,
): Promise<StagedFile[]> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    failure ??= { error };
    stop.abort(error);
  };
  const sizes = await Promise.all(
    files.map(
      async (file) => (await stat(bytesOf(file, options.dir)).catch(() => undefined))?.size,
    ),
  );
  options.onEvent?.({
    type: 'plan',
    files: files.map((file, index) => ({ path: file.path, bytes: sizes[index] })),
  });
  const staging: Staging = {
    files,
    sizes,
    announced: new Set<string>(),
    upload: limiter(options.concurrency),
    fail,
  };
  const forms = await earlyForms(staging, options, signal).catch((error: unknown) => {
    fail(error);
    return new Map<number, UploadTarget>();
  });
  const staged: StagedFile[] = [];
  const background: Promise<unknown>[] = [];
  const unhashed = new Map([...forms].filter(([, target]) => target.may_exist === false));
  for (const [index, target] of unhashed) {
    const sent = sendUnhashed(index, target, staging, options, signal);
    background.push(sent.then((file) => file && staged.push(file)));
  }
  const hashed = files.map((_, index) => index).filter((index) => !unhashed.has(index));
  const { digests, settled } = hashInTurn(hashed, staging, options, signal);
  background.push(...[...digests.values()].map((digest) => digest.catch(fail)));
  const started = startEarly(forms, digests, staging, options, signal);
  background.push(Promise.all([...started.values()].map((one) => one.stored)));
  try {
    for (let next = 0; next < hashed.length && !failure;) {
      const batch = [hashed[next++] as number];
      await digests.get(batch[0] as number);
      while (next < hashed.length && settled.has(hashed[next] as number))
        batch.push(hashed[next++] as number);
      const done = await Promise.all(
        batch.map(async (index) => ({
          ...(files[index] as PackageFile),
          ...(await (digests.get(index) as Promise<Digest>)),
        })),
      );
      for (const [position, file] of (await authorize(done, options)).entries()) {
        staged.push(file);
        const head = started.get(batch[position] ?? -1);
        background.push(sendAuthorized(file, head, staging, options, signal));
      }
    }
  } catch (error) {
    fail(error);
  }
  await Promise.all(background);
  if (failure) throw failure.error;
  const order = new Map(files.map((file, index) => [file.path, index]));
  return staged.sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0));
}

type Digest = { length: number; md5: string };

/**
 * Hashes the files at `indexes` one after another, from now on. `settled` holds the
 * indexes of those hashed so far.
 */
function hashInTurn(
  indexes: number[],
  staging: Staging,
  options: StageOptions,
  signal: AbortSignal,
): { digests: Map<number, Promise<Digest>>; settled: Set<number> } {
  const digests = new Map<number, Promise<Digest>>();
  const settled = new Set<number>();
  let previous: Promise<unknown> = Promise.resolve();
  for (const index of indexes) {
    const file = staging.files[index] as PackageFile;
    const digest = previous.then(async () => {
      options.onEvent?.({ type: 'hashing', path: file.path });
      const path = bytesOf(file, options.dir);
      const { size } = await stat(path);
      return fileDigest(path, signal, (read) =>
        options.onEvent?.({ type: 'hashing', path: file.path, read, bytes: size }),
      );
    });
    // Its failure is reported by whoever awaits the digest.
    void digest.then(
      () => settled.add(index),
      () => undefined,
    );
    previous = digest;
    digests.set(index, digest);
  }
  return { digests, settled };
}

/** Where a file's bytes are read from. */
function bytesOf(file: PackageFile, dir: string): string {
  return file.source ?? join(dir, file.path);
}

/**
 * Announces a file the hub answered for, and sees its bytes to the hub: none when the hub
 * holds them, the early upload's when one goes on (else it is let go), or a new upload.
 */
async function sendAuthorized(
  file: StagedFile,
  head: EarlyUpload | undefined,
  staging: Staging,
  options: StageOptions,
  signal: AbortSignal,
): Promise<void> {
  const keep = head !== undefined && !file.target.exists && head.length === file.length;
  if (!keep) head?.cancel.abort();
  options.onEvent?.({
    type: 'file',
    path: file.path,
    bytes: file.length,
    exists: file.target.exists,
  });
  staging.announced.add(file.path);
  if (file.target.exists) return;
  try {
    const stored = keep
      ? await head.stored
      : await staging.upload(async () => {
          await sendFile(file, file.target, options, signal, staging.announced);
          return true;
        });
    if (stored) options.onEvent?.({ type: 'uploaded', path: file.path });
  } catch (error) {
    staging.fail(error);
  }
}

interface Staging {
  files: PackageFile[];
  sizes: (number | undefined)[];
  /** Paths whose upload may report progress: those the hub said it needs. */
  announced: Set<string>;
  upload: <T>(task: () => Promise<T>) => Promise<T>;
  fail: (error: unknown) => void;
}

/**
 * Forms whose digest follows the file, for the first large files (as many as run at once),
 * where the hub offers them. A hub without them (an older one refuses the request) leaves
 * every file to be hashed first.
 */
async function earlyForms(
  staging: Staging,
  options: StageOptions,
  signal: AbortSignal,
): Promise<Map<number, UploadTarget>> {
  const { files, sizes } = staging;
  const chosen = files
    .map((_, index) => index)
    .filter((index) => (sizes[index] ?? 0) >= EARLY_MIN_BYTES)
    .slice(0, options.concurrency);
  const forms = new Map<number, UploadTarget>();
  if (chosen.length === 0) return forms;
  const entries = await Promise.all(
    chosen.map(async (index) => {
      const file = files[index] as PackageFile;
      const entry = {
        length: sizes[index],
        head_md5: await headDigest(bytesOf(file, options.dir)),
        name: file.name,
        type: typeOf(file.path),
      };
      return [file.path, entry] as const;
    }),
  );
  let targets: Record<string, UploadTarget>;
  try {
    targets = await options.api.rawstoreAuthorize(
      options.rawstoreToken,
      {
        metadata: options.metadata,
        digest_after: true,
        filedata: Object.fromEntries(entries),
        upload_methods: UPLOAD_METHODS,
      },
      false,
    );
  } catch (error) {
    // Nothing is lost: the files are hashed first, and the hub's answer to that counts.
    if (error instanceof DataError && !signal.aborted) return forms;
    throw error;
  }
  for (const index of chosen) {
    const target = targets[(files[index] as PackageFile).path];
    if (target?.digest === 'after' && isForm(target)) forms.set(index, target);
  }
  return forms;
}

/**
 * Starts the early uploads of files that are hashed too: the digest follows the bytes, and
 * the upload is let go if the digest shows the hub holds the file.
 */
function startEarly(
  forms: Map<number, UploadTarget>,
  digests: Map<number, Promise<Digest>>,
  staging: Staging,
  options: StageOptions,
  signal: AbortSignal,
): Map<number, EarlyUpload> {
  const started = new Map<number, EarlyUpload>();
  for (const [index, target] of forms) {
    const hashing = digests.get(index);
    if (!hashing) continue;
    const file = staging.files[index] as PackageFile;
    const length = staging.sizes[index] ?? 0;
    const cancel = new AbortController();
    const md5 = hashing.then((digest) => digest.md5);
    // Its failure is the digest's own, reported where the digests are awaited.
    md5.catch(() => undefined);
    const stored = staging.upload(async () => {
      if (cancel.signal.aborted) return false;
      const both = AbortSignal.any([signal, cancel.signal]);
      try {
        const trailer = { field: 'Content-MD5' as const, md5 };
        await sendFile({ ...file, length }, target, options, both, staging.announced, trailer);
        return true;
      } catch (error) {
        if (!cancel.signal.aborted) staging.fail(error);
        return false;
      }
    });
    started.set(index, { length, cancel, stored });
  }
  return started;
}

/**
 * Sends a file the hub cannot hold yet with no digest pass: its CRC32, taken as the bytes
 * go, follows it, and the hub answers with the MD5 it stored the bytes under.
 */
async function sendUnhashed(
  index: number,
  target: UploadTarget,
  staging: Staging,
  options: StageOptions,
  signal: AbortSignal,
): Promise<StagedFile | undefined> {
  const file = staging.files[index] as PackageFile;
  const length = staging.sizes[index] ?? 0;
  options.onEvent?.({ type: 'file', path: file.path, bytes: length, exists: false });
  staging.announced.add(file.path);
  try {
    const reply = await staging.upload(() =>
      sendFile({ ...file, length }, target, options, signal, staging.announced, {
        field: CRC32_FIELD,
      }),
    );
    const stored = storedObject(reply, file.path);
    options.onEvent?.({ type: 'uploaded', path: file.path });
    return { ...file, length, md5: stored.md5, target: { ...target, ...stored, exists: false } };
  } catch (error) {
    staging.fail(error);
    return undefined;
  }
}

/** The object a hub stored a file's bytes as, from its answer to an upload without digest. */
function storedObject(reply: string, path: string): { object_url: string; md5: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply);
  } catch {
    parsed = undefined;
  }
  const { object_url: url, md5 } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof url !== 'string' || typeof md5 !== 'string' || !/^[A-Za-z0-9+/]{22}==$/.test(md5))
    throw new ServerError(`upload ${path}: the hub did not say where it stored the file`);
  return { object_url: url, md5 };
}

async function authorize(
  files: (PackageFile & Digest)[],
  options: StageOptions,
): Promise<StagedFile[]> {
  const filedata = Object.fromEntries(
    files.map((file) => [
      file.path,
      { length: file.length, md5: file.md5, name: file.name, type: typeOf(file.path) },
    ]),
  );
  const targets = await options.api.rawstoreAuthorize(options.rawstoreToken, {
    metadata: options.metadata,
    filedata,
    upload_methods: UPLOAD_METHODS,
  });
  return files.map((file) => {
    const target = targets[file.path];
    if (!target || (!target.exists && !isForm(target)))
      throw new ServerError(`rawstore authorize: the hub gave no upload form for ${file.path}`);
    return { ...file, target };
  });
}

/** Whether a hub's entry holds what an upload needs: an address and its fields. */
function isForm(target: UploadTarget): boolean {
  const fields: unknown = target.upload_query;
  return (
    typeof target.upload_url === 'string' &&
    typeof fields === 'object' &&
    fields !== null &&
    Object.values(fields).every((value) => typeof value === 'string')
  );
}

/** The headers a presigned PUT must send, strings only; the length is the file's own. */
function putHeaders(target: UploadTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.upload_headers ?? {}))
    if (typeof value === 'string' && name.toLowerCase() !== 'content-length') headers[name] = value;
  return headers;
}

/** The file's MD5 as far as it is known before its upload: given, or on its way. */
function knownDigest(
  file: PackageFile & { md5?: string },
  trailer: Trailer | undefined,
): { md5?: Promise<string> | string } {
  if (file.md5 !== undefined) return { md5: file.md5 };
  return trailer?.field === 'Content-MD5' ? { md5: trailer.md5 } : {};
}

/** Sends one file; its progress is reported once the hub said it needs the file. */
async function sendFile(
  file: PackageFile & { length: number; md5?: string },
  target: UploadTarget,
  options: StageOptions,
  signal: AbortSignal,
  announced: Set<string>,
  trailer?: Trailer,
): Promise<string> {
  const common = { url: target.upload_url, path: bytesOf(file, options.dir) };
  const upload: Upload =
    target.upload_method === 'PARTS'
      ? { method: 'PARTS', ...common, length: file.length, ...knownDigest(file, trailer) }
      : target.upload_method === 'PUT'
        ? { method: 'PUT', ...common, length: file.length, headers: putHeaders(target) }
        : {
            method: 'POST',
            ...common,
            fields: target.upload_query,
            length: file.length,
            contentType: target.upload_query['Content-Type'] ?? typeOf(file.path),
            ...(trailer ? { trailer } : {}),
          };
  return uploadFile(
    options.fetch,
    upload,
    file.path,
    (sent) => {
      if (announced.has(file.path))
        options.onEvent?.({ type: 'progress', path: file.path, sent, bytes: file.length });
    },
    signal,
  );
}
