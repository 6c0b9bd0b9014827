import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { fileDigest } from '../transfers/digest.js';
import { uploadFile, type Upload } from '../transfers/upload.js';
import type { HubApi, UploadTarget } from './api.js';
import type { HttpFetch } from './http.js';
import { limiter } from './limit.js';

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
  | { type: 'hashing'; path: string }
  | { type: 'file'; path: string; bytes: number; exists: boolean }
  | { type: 'progress'; path: string; sent: number; bytes: number }
  | { type: 'uploaded'; path: string };

export interface StageOptions {
  dir: string;
  api: HubApi;
  fetch: HttpFetch;
  rawstoreToken: string;
  metadata: { owner: string; findability: string };
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

/** Smaller files gain too little from starting before their digest to be worth a request. */
const EARLY_MIN_BYTES = 8 * 1024 * 1024;

/** An upload started before its file's digest was known (see startEarly). */
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
 * once, and are cancelled if their digest shows the hub holds them already. The first
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
      async (file) =>
        (await stat(file.source ?? join(options.dir, file.path)).catch(() => undefined))?.size,
    ),
  );
  options.onEvent?.({
    type: 'plan',
    files: files.map((file, index) => ({ path: file.path, bytes: sizes[index] })),
  });
  const background: Promise<unknown>[] = [];
  const settled = new Set<number>();
  let previous: Promise<unknown> = Promise.resolve();
  const digests = files.map((file, index) => {
    const digest = previous.then(() => {
      options.onEvent?.({ type: 'hashing', path: file.path });
      return fileDigest(file.source ?? join(options.dir, file.path), signal);
    });
    previous = digest;
    background.push(digest.then(() => settled.add(index), fail));
    return digest;
  });
  const staging: Staging = {
    files,
    sizes,
    digests,
    announced: new Set<string>(),
    upload: limiter(options.concurrency),
    fail,
  };
  const early = startEarly(staging, options, signal).catch((error: unknown) => {
    fail(error);
    return new Map<number, EarlyUpload>();
  });
  background.push(
    early.then((started) => Promise.all([...started.values()].map((one) => one.stored))),
  );
  const staged: StagedFile[] = [];
  try {
    for (let next = 0; next < files.length;) {
      const batch = [next];
      await digests[next++];
      while (next < files.length && settled.has(next)) batch.push(next++);
      const hashed = await Promise.all(
        batch.map(async (index) => ({
          ...(files[index] as PackageFile),
          ...(await (digests[index] as Promise<{ length: number; md5: string }>)),
        })),
      );
      const started = await early;
      for (const [position, file] of (await authorize(hashed, options)).entries()) {
        staged.push(file);
        const head = started.get(batch[position] ?? -1);
        background.push(sendAuthorized(file, head, staging, options, signal));
      }
      if (failure) break;
    }
  } catch (error) {
    fail(error);
  }
  await Promise.all(background);
  if (failure) throw failure.error;
  return staged;
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
  digests: Promise<{ length: number; md5: string }>[];
  /** Paths whose upload may report progress: those the hub said it needs. */
  announced: Set<string>;
  upload: <T>(task: () => Promise<T>) => Promise<T>;
  fail: (error: unknown) => void;
}

/**
 * Starts uploading the first large files (as many as run at once) before their digests,
 * through forms whose digest follows the file, where the hub offers them. A hub without
 * them (an older one refuses the request) leaves every file to be hashed first.
 */
async function startEarly(
  staging: Staging,
  options: StageOptions,
  signal: AbortSignal,
): Promise<Map<number, EarlyUpload>> {
  const { files, sizes } = staging;
  const chosen = files
    .map((_, index) => index)
    .filter((index) => (sizes[index] ?? 0) >= EARLY_MIN_BYTES)
    .slice(0, options.concurrency);
  const started = new Map<number, EarlyUpload>();
  if (chosen.length === 0) return started;
  let targets: Record<string, UploadTarget>;
  try {
    targets = await options.api.rawstoreAuthorize(
      options.rawstoreToken,
      {
        metadata: options.metadata,
        digest_after: true,
        filedata: Object.fromEntries(
          chosen.map((index) => {
            const file = files[index] as PackageFile;
            return [file.path, { length: sizes[index], name: file.name, type: typeOf(file.path) }];
          }),
        ),
      },
      false,
    );
  } catch (error) {
    // Nothing is lost: the files are hashed first, and the hub's answer to that counts.
    if (error instanceof CliError && !signal.aborted) return started;
    throw error;
  }
  for (const index of chosen) {
    const file = files[index] as PackageFile;
    const target = targets[file.path];
    const length = sizes[index] ?? 0;
    if (target?.digest !== 'after' || !isForm(target)) continue;
    const cancel = new AbortController();
    const digest = (staging.digests[index] as Promise<{ md5: string }>).then(({ md5 }) => md5);
    // Its failure is the digest's own, reported where the digests are awaited.
    digest.catch(() => undefined);
    const stored = staging.upload(async () => {
      if (cancel.signal.aborted) return false;
      const both = AbortSignal.any([signal, cancel.signal]);
      try {
        await sendFile({ ...file, length }, target, options, both, staging.announced, digest);
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

async function authorize(
  files: (PackageFile & { length: number; md5: string })[],
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
    // Where the hub's store takes uploads itself, the bytes go there without a detour.
    upload_methods: ['PUT', 'POST'],
  });
  return files.map((file) => {
    const target = targets[file.path];
    if (!target || (!target.exists && !isForm(target)))
      throw new CliError(`rawstore authorize: the hub gave no upload form for ${file.path}`, {
        code: 'E_API',
        exitCode: EXIT.network,
      });
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

/** Sends one file; its progress is reported once the hub said it needs the file. */
async function sendFile(
  file: PackageFile & { length: number },
  target: UploadTarget,
  options: StageOptions,
  signal: AbortSignal,
  announced: Set<string>,
  digestAfter?: Promise<string>,
): Promise<void> {
  const common = { url: target.upload_url, path: file.source ?? join(options.dir, file.path) };
  const upload: Upload =
    target.upload_method === 'PUT'
      ? { method: 'PUT', ...common, length: file.length, headers: putHeaders(target) }
      : {
          method: 'POST',
          ...common,
          fields: target.upload_query,
          length: file.length,
          contentType: target.upload_query['Content-Type'] ?? typeOf(file.path),
          ...(digestAfter ? { digestAfter } : {}),
        };
  await uploadFile(
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
