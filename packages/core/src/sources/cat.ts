import {
  isDescriptorPath,
  packageDescriptor,
  readDescriptorFile,
} from '../files/descriptor-file.js';
import { kindOfNonFile } from '../files/chunks.js';
import { packageShape } from './descriptor-shape.js';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { InputError, UsageError } from '../errors.js';
import type { ResourceDescriptor } from '../validator/descriptor/types.js';
import { isRemote } from '../model/paths.js';
import { formatOf, isTableFormat } from '../model/format.js';
import type { Base, Fetch } from '../validator/location.js';
import { json, send, type HttpFetch } from '../http/http.js';
import { untilAborted } from './until-aborted.js';

/** A table to print: its resource, where its relative paths start, and how to fetch. */
export interface CatSource {
  resource: ResourceDescriptor;
  base: Base;
  fetch: Fetch;
}

/** The address standard input stands at for the reader; it is never sent anywhere. */
const STDIN_URL = 'http://standard-input.invalid/stdin';

function pick(
  resources: ResourceDescriptor[],
  wanted: string | undefined,
  where: string,
): ResourceDescriptor {
  const names = resources.map((resource) => resource.name).join(', ');
  if (wanted !== undefined) {
    const found = resources.find((resource) => resource.name === wanted);
    if (!found)
      throw new InputError(`${where} has no resource "${wanted}"`, `its resources: ${names}`);
    return found;
  }
  const first = resources[0];
  if (!first) throw new InputError(`${where} has no resources`);
  return first;
}

/** The reader's fetch over the client's: a failure to connect names the step. */
export function readerFetch(fetch: HttpFetch): Fetch {
  return (url, init) =>
    send(fetch, `read ${url}`, url, init?.signal ? { signal: init.signal } : {});
}

export async function localDescriptor(
  path: string,
): Promise<{ descriptor: { resources?: ResourceDescriptor[] }; dir: string } | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new InputError(`"${path}" does not exist`);
  if (!info.isDirectory() && !info.isFile())
    throw new InputError(`"${path}" is ${kindOfNonFile(info)}, not a file`);
  const file = info.isDirectory()
    ? await packageDescriptor(path, (message) => new InputError(message))
    : isDescriptorPath(path)
      ? path
      : undefined;
  if (!file) return undefined;
  const read: unknown = await readDescriptorFile(file).catch(() => {
    throw new InputError(`${file} is not a readable descriptor`);
  });
  return { descriptor: packageShape(read, file), dir: dirname(file) };
}

/**
 * Where `data cat` reads from: `-` (standard input), a local package folder or descriptor,
 * a single data file, a hub dataset (owner/dataset or its URL) or a `/r/` file URL.
 */
export async function catSource(
  source: string,
  resource: string | undefined,
  context: {
    /** Standard input, opened only for `-` (opening it takes a few ms, and may wait). */
    stdin: () => AsyncIterable<Uint8Array>;
    /** Carries the hub's token where it belongs (see credential.ts). */
    fetch: HttpFetch;
    /** The hub's URL for owner/dataset, its site for reads. */
    descriptorUrlOf: (target: string) => { url: string; single: boolean } | undefined;
    /** Whether the source is read here rather than from a hub (commands/local-or-hub.ts). */
    isLocal: (source: string) => boolean;
  },
): Promise<CatSource> {
  const none: Fetch = () => Promise.reject(new Error('nothing to fetch'));
  if (source === '-') {
    const stdin: Fetch = (url, init) =>
      url === STDIN_URL
        ? Promise.resolve({
            ok: true,
            status: 200,
            body: untilAborted(context.stdin(), init?.signal),
          })
        : Promise.reject(new Error('standard input only'));
    return { resource: { name: 'stdin', path: STDIN_URL, format: 'csv' }, base: {}, fetch: stdin };
  }
  if (!isRemote(source) && context.isLocal(source)) {
    const local = await localDescriptor(source);
    if (local) {
      const resources = (local.descriptor.resources ?? []).filter(
        (item) => typeof item === 'object',
      );
      return { resource: pick(resources, resource, source), base: { dir: local.dir }, fetch: none };
    }
    if (resource !== undefined)
      throw new UsageError('a single file is one table: name no resource');
    return {
      resource: { name: basename(source), path: basename(source) },
      base: { dir: dirname(source) },
      fetch: none,
    };
  }
  // The URL of a table itself, not of a dataset: read as a single file is.
  const tableUrl =
    isRemote(source) && isTableFormat(formatOf({ path: new URL(source).pathname }) ?? '');
  if (tableUrl && resource !== undefined)
    throw new UsageError('a single file is one table: name no resource');
  const target = tableUrl ? { url: source, single: true } : context.descriptorUrlOf(source);
  if (!target) throw new InputError(`"${source}" is no file, folder, owner/dataset or URL`);
  const fetch = readerFetch(context.fetch);
  if (target.single) {
    const name = decodeURIComponent(new URL(target.url).pathname.split('/').pop() ?? 'file');
    return { resource: { name, path: target.url }, base: {}, fetch };
  }
  const descriptor = packageShape(
    await json(`read ${target.url}`, await send(context.fetch, `read ${target.url}`, target.url)),
    target.url,
  );
  return {
    resource: pick(descriptor.resources ?? [], resource, source),
    base: { url: target.url },
    fetch,
  };
}
