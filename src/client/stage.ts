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

/**
 * Hashes the files one after another; each time the hub is free it authorizes every file
 * hashed so far, and those it does not hold yet start uploading while the next are hashed.
 * Uploads thus begin after the first digest instead of the last. The first failure stops
 * everything still running and is thrown.
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
  options.onEvent?.({
    type: 'plan',
    files: await Promise.all(
      files.map(async (file) => ({
        path: file.path,
        bytes: (await stat(file.source ?? join(options.dir, file.path)).catch(() => undefined))
          ?.size,
      })),
    ),
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
  const upload = limiter(options.concurrency);
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
      for (const file of await authorize(hashed, options)) {
        staged.push(file);
        options.onEvent?.({
          type: 'file',
          path: file.path,
          bytes: file.length,
          exists: file.target.exists,
        });
        if (!file.target.exists)
          background.push(upload(() => uploadOne(file, options, signal)).catch(fail));
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
    if (!target)
      throw new CliError(`rawstore authorize: the hub gave no upload form for ${file.path}`, {
        code: 'E_API',
        exitCode: EXIT.network,
      });
    return { ...file, target };
  });
}

/** The headers a presigned PUT must send, strings only; the length is the file's own. */
function putHeaders(target: UploadTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.upload_headers ?? {}))
    if (typeof value === 'string' && name.toLowerCase() !== 'content-length') headers[name] = value;
  return headers;
}

async function uploadOne(
  file: StagedFile,
  options: StageOptions,
  signal: AbortSignal,
): Promise<void> {
  const { target } = file;
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
        };
  await uploadFile(
    options.fetch,
    upload,
    file.path,
    (sent) => options.onEvent?.({ type: 'progress', path: file.path, sent, bytes: file.length }),
    signal,
  );
  options.onEvent?.({ type: 'uploaded', path: file.path });
}
