import { makeDirectory } from '../files/directories.js';
import { readdir, rename, writeFile } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { isDerived } from '../validator/descriptor/derived.js';
import { isRemote, unsafeReason } from '../validator/descriptor/paths.js';
import { downloadFile } from '../transfers/download.js';
import { json, send, tokenFor, withRetries, type HttpFetch } from './http.js';
import { eachLimited } from './limit.js';

export interface Target {
  /** URL of datapackage.json, or of a single file. */
  url: string;
  single: boolean;
  /** Default folder, relative to the current one. */
  folder: string;
}

/** owner/dataset, owner/dataset/r/<file>, or a URL of either. */
export function parseTarget(input: string, site: string): Target {
  if (/^https?:\/\//i.test(input)) {
    const url = new URL(input);
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts.at(-2) === 'r') return { url: url.href, single: true, folder: '.' };
    const datasetParts = parts.at(-1) === 'datapackage.json' ? parts.slice(0, -1) : parts;
    const descriptor = new URL(
      `${url.origin}/${[...datasetParts, 'datapackage.json'].join('/')}${url.search}`,
    );
    return {
      url: descriptor.href,
      single: false,
      folder: datasetParts.slice(-2).join('/') || 'dataset',
    };
  }
  const parts = input.split('/').filter(Boolean);
  if (parts.length === 2)
    return {
      url: `${site}/${parts.join('/')}/datapackage.json`,
      single: false,
      folder: parts.join('/'),
    };
  if (parts.length === 4 && parts[2] === 'r')
    return { url: `${site}/${parts.map(encodeURIComponent).join('/')}`, single: true, folder: '.' };
  throw new UsageError(`"${input}" is not owner/dataset, owner/dataset/r/<file> or a URL`);
}

export interface GetOptions {
  /** Sends GETs only, and may lend its body chunks (see lending.ts). */
  fetch: HttpFetch;
  token: string | undefined;
  out: string;
  force: boolean;
  signal?: AbortSignal | undefined;
  concurrency?: number;
  /** Globs of the resource paths to fetch, and of those to leave out. */
  include?: string[] | undefined;
  exclude?: string[] | undefined;
  onEvent?: (event: GetEvent) => void;
}

export type GetEvent =
  | { type: 'plan'; files: { path: string; bytes: number | undefined }[] }
  | { type: 'size'; path: string; bytes: number }
  | { type: 'progress'; path: string; received: number; bytes: number | undefined }
  | { type: 'saved'; path: string; bytes: number };

export interface GetResult {
  folder: string;
  files: { path: string; bytes: number }[];
}

/** Empty, or holding only the partial downloads of a get that broke off: it resumes them. */
async function isEmptyFolder(folder: string): Promise<boolean> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.every((entry) => entry.isDirectory() || entry.name.endsWith('.part'));
}

function outside(path: string): CliError {
  return new CliError(`the descriptor points outside the target folder: ${path}`, {
    code: 'E_UNSAFE',
    exitCode: EXIT.invalid,
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
export function noSuchDataset(target: Target, signedIn: boolean): CliError {
  const name = target.folder === '.' ? target.url : target.folder;
  return new CliError(`there is no dataset ${name} (or it is private)`, {
    code: 'E_NOT_FOUND',
    exitCode: EXIT.usage,
    hint: signedIn
      ? 'check the owner and the dataset name; a private dataset shows only to its owner'
      : 'check the owner and the dataset name; if it is yours and private, run `data login` first',
  });
}

/** Downloads a dataset's descriptor and every resource into a folder that validates offline. */
export async function getDataset(target: Target, options: GetOptions): Promise<GetResult> {
  const folder = options.out;
  if (!options.force && !(await isEmptyFolder(folder))) {
    throw new UsageError(
      `${folder} is not empty`,
      'pass --force to write into it, or --out to choose another folder',
    );
  }
  const signal = options.signal ? { signal: options.signal } : {};
  const descriptor = (await withRetries(async () => {
    const response = await send(options.fetch, 'get descriptor', target.url, {
      headers: options.token ? { 'Auth-Token': options.token } : {},
      ...signal,
    });
    if (response.status === 404) {
      await response.text();
      throw noSuchDataset(target, options.token !== undefined);
    }
    return json(`get ${target.url}`, response);
  }, signal)) as Record<string, unknown> & { resources?: Record<string, unknown>[] };
  const jobs: { url: string; path: string; resource: Record<string, unknown> }[] = [];
  const taken = new Set<string>();
  const wanted = pathFilter(options.include, options.exclude);
  // The originals: the copies a hub derived in other formats are read at its /r/ addresses.
  descriptor.resources = (descriptor.resources ?? []).filter((resource) => {
    if (isDerived(resource)) return false;
    const path = resource.path;
    return (
      typeof path !== 'string' || wanted(isRemote(path) ? new URL(path).pathname.slice(1) : path)
    );
  });
  const revision = new URL(target.url).searchParams.get('v');
  for (const resource of descriptor.resources) {
    const path = resource.path;
    if (typeof path !== 'string') continue;
    if (isRemote(path)) {
      let local = `data/${basename(new URL(path).pathname) || String(resource.name)}`;
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
      const url = new URL(path, target.url);
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
      token: tokenFor(job.url, target.url, options.token),
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
  const temporary = join(folder, `.datapackage.json.${String(process.pid)}.part`);
  await writeFile(temporary, `${JSON.stringify(descriptor, null, 2)}\n`);
  await rename(temporary, join(folder, 'datapackage.json'));
  return { folder, files: files.sort((a, b) => a.path.localeCompare(b.path)) };
}

/** Downloads one file of a dataset into a folder. */
export async function getFile(target: Target, options: GetOptions): Promise<GetResult> {
  const name = decodeURIComponent(new URL(target.url).pathname.split('/').pop() ?? 'file');
  const path = inside(options.out, name);
  options.onEvent?.({ type: 'plan', files: [{ path: name, bytes: undefined }] });
  const bytes = await downloadFile(options.fetch, target.url, path, {
    token: options.token,
    signal: options.signal,
    onBytes: (received) =>
      options.onEvent?.({ type: 'progress', path: name, received, bytes: undefined }),
  });
  options.onEvent?.({ type: 'saved', path: name, bytes });
  return { folder: options.out, files: [{ path: name, bytes }] };
}
