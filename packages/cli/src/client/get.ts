import { makeDirectory, replaceFile, writeFileAtomic } from '@data/core';
import { open, readdir, rm, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { ApiError, InvalidDataError, NotFoundError, UsageError } from '@data/core';
import {
  derivedFile,
  derivedOf,
  isDerived,
  resourceName,
  resourcesOf,
  type Package,
  type Resource,
} from '@data/core';
import { isRemote, unsafeReason } from '@data/core';
import { downloadFile } from '../transfers/download.js';
import { json, send, withRetries, type HttpFetch } from '@data/core';
import { eachLimited } from '@data/core';
import type { GetFormat } from './formats.js';

import { olderHubTarget, type Target } from '@data/core';

export { atRevision, parseTarget, type Target } from '@data/core';

export interface GetOptions {
  /**
   * Sends GETs only, and may lend its body chunks (see lending.ts); it carries the hub's
   * token where the token belongs (see credential.ts).
   */
  fetch: HttpFetch;
  /** Whether the dataset's address is the hub's and a token goes with it: for the hint of a 404. */
  signedIn: boolean;
  out: string;
  force: boolean;
  signal?: AbortSignal | undefined;
  concurrency?: number;
  /** Globs of the resource paths to fetch, and of those to leave out. */
  include?: string[] | undefined;
  exclude?: string[] | undefined;
  /** The tables as uploaded, or the hub's CSV or JSON copies of them. */
  format?: GetFormat | undefined;
  onEvent?: (event: GetEvent) => void;
}

/** What a resource's copy keeps of it: what describes the data, not how it was written. */
const KEPT = ['name', 'title', 'description', 'licenses', 'sources', 'profile'];

/**
 * The resources to save in a format: each table the hub copied into it becomes its copy,
 * under the table's name and at `data/<name>.<format>` with the schema that describes it;
 * the rest stay as they are.
 */
function inFormat(resources: Resource[], format: GetFormat): Resource[] {
  const originals = resources.filter((resource) => !isDerived(resource));
  if (format === 'original') return originals;
  return originals.map((resource) => {
    const copy = derivedOf(resources, `derived/${format}`, resource.name);
    if (!copy || typeof copy.path !== 'string') return resource;
    const kept = Object.fromEntries(
      KEPT.filter((key) => key in resource).map((key) => [key, resource[key]]),
    );
    return {
      ...kept,
      name: resource.name,
      // Named as the hub keeps its copies: `a/../t` is no path to `t`'s file.
      path: `data/${derivedFile(resourceName(resource), format)}`,
      format,
      mediatype: copy.mediatype,
      ...(format === 'parquet' ? {} : { encoding: 'utf-8' }),
      ...(typeof copy.bytes === 'number' ? { bytes: copy.bytes } : {}),
      ...(typeof copy.hash === 'string' ? { hash: copy.hash } : {}),
      ...schemaOfCopy(format, resource, copy),
      [FROM]: copy.path,
    };
  });
}

/**
 * The schema a saved copy carries: the hub's for the CSV and Parquet copies, whose values
 * are written in their types' one form or typed (it says so without the text formats; a
 * hub before typed CSV copies names the table's, as the cells are written), else the
 * table's for the CSV copy; none for JSON.
 */
function schemaOfCopy(
  format: GetFormat,
  resource: Resource,
  copy: Resource,
): { schema?: Resource['schema'] } {
  if (format === 'json') return {};
  if (copy.schema !== undefined) return { schema: copy.schema };
  return format === 'csv' && resource.schema !== undefined ? { schema: resource.schema } : {};
}

/** Where a resource's bytes are read from on the hub, when not at its own path. */
const FROM = Symbol('read from');

export type GetEvent =
  | { type: 'plan'; files: { path: string; bytes: number | undefined }[] }
  | { type: 'size'; path: string; bytes: number }
  | { type: 'progress'; path: string; received: number; bytes: number | undefined }
  | { type: 'saved'; path: string; bytes: number }
  /** A file already there with the same bytes, left alone. */
  | { type: 'unchanged'; path: string };

export interface GetResult {
  folder: string;
  files: { path: string; bytes: number }[];
}

/** Empty, or holding only the partial downloads of a get that broke off: it resumes them. */
async function isEmptyFolder(folder: string): Promise<boolean> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.every((entry) => entry.isDirectory() || entry.name.endsWith('.part'));
}

function outside(path: string): InvalidDataError {
  return new InvalidDataError(`the descriptor points outside the target folder: ${path}`, {
    code: 'E_UNSAFE',
  });
}

function inside(folder: string, path: string): string {
  const full = resolve(folder, path);
  if (full !== resolve(folder) && !full.startsWith(resolve(folder) + sep)) throw outside(path);
  return full;
}

/** Whether a resource path is wanted: it matches an include (if any) and no exclude. */
function pathFilter(
  include: string[] | undefined,
  exclude: string[] | undefined,
): (path: string) => boolean {
  const included = include && include.length > 0 ? picomatch(include, { dot: true }) : () => true;
  const excluded = exclude && exclude.length > 0 ? picomatch(exclude, { dot: true }) : () => false;
  return (path) => included(path) && !excluded(path);
}

/** The hub has no such dataset, or none this caller may see: a source that does not exist. */
export function noSuchDataset(target: Target, signedIn: boolean): NotFoundError {
  const name = target.folder === '.' ? target.url : target.folder;
  const revision =
    target.revision === undefined || target.folder === '.'
      ? ''
      : ` with a revision ${String(target.revision)}`;
  return new NotFoundError(`there is no dataset ${name}${revision} (or it is private)`, {
    hint: signedIn
      ? "check the owner and the dataset name; a private dataset shows only to its owner, an organisation's to its members too"
      : 'check the owner and the dataset name; if it is yours and private, sign in first',
    reason: 'no-dataset',
    signedIn,
  });
}

/**
 * A dataset's descriptor, and the target its files are read against: the one given, or,
 * from a hub older than revision addresses (`/v/<N>/`), revision N at `?v=N` as it was read
 * then. Such a hub answers `?v=N` itself, where a newer one moves it to `/v/<N>/`.
 */
async function fetchDescriptor(
  target: Target,
  options: GetOptions,
): Promise<{ descriptor: Package; target: Target }> {
  const found = await readDescriptor(target.url, options);
  if (found) return { descriptor: found, target };
  const older = olderHubTarget(target);
  const then = older && (await readDescriptor(older.url, options, 'manual'));
  if (older && then) return { descriptor: then, target: older };
  throw noSuchDataset(target, options.signedIn);
}

/**
 * The descriptor at an address; undefined when there is none, or (not followed) a redirect.
 * Read as the hub's Package, its properties are read with model/'s helpers (resourcesOf).
 */
async function readDescriptor(
  url: string,
  options: GetOptions,
  redirect?: 'manual',
): Promise<Package | undefined> {
  const signal = options.signal ? { signal: options.signal } : {};
  return (await withRetries(async () => {
    const response = await send(options.fetch, 'get descriptor', url, {
      ...signal,
      ...(redirect ? { redirect } : {}),
    });
    if (response.status === 404 || (redirect && response.status >= 300 && response.status < 400)) {
      await response.text();
      return undefined;
    }
    return json(`get ${url}`, response);
  }, signal)) as Package | undefined;
}

/** Downloads a dataset's descriptor and every resource into a folder that validates offline. */
export async function getDataset(target: Target, options: GetOptions): Promise<GetResult> {
  const folder = options.out;
  if (!options.force && !(await isEmptyFolder(folder))) {
    throw new UsageError(`${folder} is not empty`, { reason: 'folder-not-empty' });
  }
  const { descriptor, target: at } = await fetchDescriptor(target, options);
  const jobs: { url: string; path: string; resource: Resource }[] = [];
  const taken = new Set<string>();
  const wanted = pathFilter(options.include, options.exclude);
  // The originals (or their copies in the format asked for): the other copies a hub derived
  // are read at its /r/ addresses.
  const resources = inFormat(resourcesOf(descriptor), options.format ?? 'original').filter(
    (resource) => {
      const path = resource.path;
      return (
        typeof path !== 'string' || wanted(isRemote(path) ? new URL(path).pathname.slice(1) : path)
      );
    },
  );
  descriptor.resources = resources;
  const revision = new URL(at.url).searchParams.get('v');
  for (const resource of resources) {
    const path = resource.path;
    if (typeof path !== 'string') continue;
    if (isRemote(path)) {
      let local = `data/${basename(new URL(path).pathname) || resourceName(resource)}`;
      while (taken.has(local)) local = local.replace(/(\.[^.]*)?$/, (ext) => `-1${ext}`);
      taken.add(local);
      jobs.push({ url: path, path: local, resource });
      resource.path = local;
    } else {
      if (unsafeReason(path, 2) && unsafeReason(path, 1)) throw outside(path);
      inside(folder, path);
      // Two resources may share one file: it is fetched once.
      if (taken.has(path)) continue;
      taken.add(path);
      const from = (resource as { [FROM]?: string })[FROM];
      const url = new URL(from ?? path, at.url);
      // A revision asked for by `?v=` holds for its files too.
      if (revision) url.searchParams.set('v', revision);
      jobs.push({ url: url.href, path, resource });
    }
  }
  await makeDirectory(folder);
  const declared = (job: (typeof jobs)[number]) =>
    typeof job.resource.bytes === 'number' ? job.resource.bytes : undefined;
  options.onEvent?.({
    type: 'plan',
    files: jobs.map((job) => ({ path: job.path, bytes: declared(job) })),
  });
  const files: GetResult['files'] = [];
  await eachLimited(jobs, options.concurrency ?? 4, async (job) => {
    const bytes = await downloadFile(options.fetch, job.url, inside(folder, job.path), {
      bytes: declared(job),
      hash: typeof job.resource.hash === 'string' ? job.resource.hash : undefined,
      signal: options.signal,
      onSize: (total) => options.onEvent?.({ type: 'size', path: job.path, bytes: total }),
      onBytes: (received) =>
        options.onEvent?.({ type: 'progress', path: job.path, received, bytes: declared(job) }),
    });
    files.push({ path: job.path, bytes });
    options.onEvent?.({ type: 'saved', path: job.path, bytes });
  });
  await writeFileAtomic(
    join(folder, 'datapackage.json'),
    `${JSON.stringify(descriptor, null, 2)}\n`,
  );
  return { folder, files: files.sort((a, b) => a.path.localeCompare(b.path)) };
}

/** Whether two files hold the same bytes: compared a block at a time, never read whole. */
async function sameBytes(a: string, b: string): Promise<boolean> {
  const [first, second] = await Promise.all([open(a), open(b)]);
  try {
    if ((await first.stat()).size !== (await second.stat()).size) return false;
    const blockA = Buffer.alloc(64 * 1024);
    const blockB = Buffer.alloc(64 * 1024);
    for (;;) {
      const [readA, readB] = await Promise.all([
        first.read(blockA, 0, blockA.length),
        second.read(blockB, 0, blockB.length),
      ]);
      if (readA.bytesRead !== readB.bytesRead) return false;
      if (readA.bytesRead === 0) return true;
      if (!blockA.subarray(0, readA.bytesRead).equals(blockB.subarray(0, readB.bytesRead)))
        return false;
    }
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
}

/**
 * Downloads one file of a dataset into a folder. A file of that name already there is
 * replaced only with --force: the download goes beside it first, so that it stays as it was
 * when the download breaks off, and one with the same bytes is left alone ("up to date").
 */
export async function getFile(target: Target, options: GetOptions): Promise<GetResult> {
  const name = decodeURIComponent(new URL(target.url).pathname.split('/').pop() ?? 'file');
  const path = inside(options.out, name);
  const existing = await stat(path).catch(() => undefined);
  // A folder, a FIFO (which reading to compare would wait on forever), a device…
  if (existing && !existing.isFile())
    throw new UsageError(`${path} exists and is no file`, { reason: 'not-a-file' });
  const incoming = existing ? `${path}.incoming` : path;
  options.onEvent?.({ type: 'plan', files: [{ path: name, bytes: undefined }] });
  const download = (url: string) =>
    downloadFile(options.fetch, url, incoming, {
      signal: options.signal,
      onBytes: (received) =>
        options.onEvent?.({ type: 'progress', path: name, received, bytes: undefined }),
    });
  const bytes = await download(target.url).catch(async (error: unknown) => {
    // A hub older than revision addresses has revision N's file at `r/<file>?v=N`, which it
    // answers itself, where a newer one moves it to `/v/<N>/` (404 here).
    const older = error instanceof ApiError && error.status === 404 && olderHubTarget(target);
    if (!older || !(await answersItself(older.url, options))) throw error;
    return download(older.url);
  });
  if (existing) {
    if (await sameBytes(incoming, path)) {
      await rm(incoming, { force: true });
      options.onEvent?.({ type: 'unchanged', path: name });
      return { folder: options.out, files: [{ path: name, bytes }] };
    }
    if (!options.force) {
      await rm(incoming, { force: true });
      throw new UsageError(`${path} exists and differs from ${name} on the hub: left as it is`, {
        reason: 'file-differs',
      });
    }
    await replaceFile(incoming, path);
  }
  options.onEvent?.({ type: 'saved', path: name, bytes });
  return { folder: options.out, files: [{ path: name, bytes }] };
}

/** Whether an address answers a GET itself, not with a redirect or an error: its body unread. */
async function answersItself(url: string, options: GetOptions): Promise<boolean> {
  const asked = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, asked.signal]) : asked.signal;
  try {
    const response = await send(options.fetch, 'get file', url, { signal, redirect: 'manual' });
    return response.status >= 200 && response.status < 300;
  } finally {
    asked.abort();
  }
}

/** Downloads the zip of a whole dataset a hub made when it published it. */
export async function getZip(target: Target, options: GetOptions): Promise<GetResult> {
  const { descriptor, target: at } = await fetchDescriptor(target, options);
  const zip = derivedOf(resourcesOf(descriptor), 'derived/zip');
  if (typeof zip?.path !== 'string')
    throw new UsageError('this hub offers no zip of the dataset', {
      code: 'E_NO_ZIP',
      hint: 'fetch the dataset as a folder: it holds the same files',
      reason: 'no-zip',
    });
  const name = `${typeof descriptor.name === 'string' ? descriptor.name : 'dataset'}.zip`;
  const path = inside(options.out, name);
  if (!options.force && (await stat(path).catch(() => undefined)))
    throw new UsageError(`${path} exists`, { reason: 'file-exists' });
  const url = new URL(zip.path, at.url);
  const revision = new URL(at.url).searchParams.get('v');
  if (revision) url.searchParams.set('v', revision);
  const bytes = typeof zip.bytes === 'number' ? zip.bytes : undefined;
  options.onEvent?.({ type: 'plan', files: [{ path: name, bytes }] });
  await makeDirectory(options.out);
  const saved = await downloadFile(options.fetch, url.href, path, {
    bytes,
    hash: typeof zip.hash === 'string' ? zip.hash : undefined,
    signal: options.signal,
    onBytes: (received) => options.onEvent?.({ type: 'progress', path: name, received, bytes }),
  });
  options.onEvent?.({ type: 'saved', path: name, bytes: saved });
  return { folder: options.out, files: [{ path: name, bytes: saved }] };
}
