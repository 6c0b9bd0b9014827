import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { HttpFetch, Package, ResourceDescriptor } from '@data/core';
import {
  ApiError,
  DESCRIPTOR_NAMES,
  InputError,
  InvalidDataError,
  isDescriptorPath,
  YamlSyntaxError,
} from '@data/core';
import type { DatasetInfo } from './info.js';

export interface InfoOptions {
  /** owner/dataset, a local package folder or descriptor, a data file, or a URL. */
  target: string;
}

export interface InfoDeps {
  /** The folder a local target is read from. */
  cwd: string;
  /** Whether the target is read here rather than from the hub. */
  isLocal: (input: string) => boolean;
  /** The hub's site, where owner/dataset is read. */
  site: () => string;
  /** For a local package's remote files: no token. */
  fetch: HttpFetch;
  /** For the hub: a fetch that carries its token there, and the token; asked only then. */
  hubReader: () => Promise<{ fetch: HttpFetch; token: string | undefined }>;
  /** Whether a token went with this URL: for the hint when a dataset does not show. */
  signedIn: (url: string) => boolean;
  signal: AbortSignal;
}

/**
 * A single file is read as a table, as validate reads it (validator/index.ts): without an
 * extension it is taken for one, and one whose format is another's (a PDF, a README) is
 * invalid, as validate says.
 */
async function asTable(resource: ResourceDescriptor, path: string): Promise<ResourceDescriptor> {
  const { formatOf, isTableFormat } = await import('@data/core');
  const format = formatOf(resource);
  if (format === undefined) return { ...resource, type: 'table' };
  if (isTableFormat(format)) return resource;
  throw new InvalidDataError(`"${path}" is not a table (format "${format}")`, {
    hint: 'tables are CSV, TSV, Excel, OpenDocument and Parquet files',
  });
}

/** A local file that is not a descriptor: shown as the one-resource package it would make. */
async function dataFileInfo(path: string, deps: InfoDeps): Promise<DatasetInfo> {
  const { describeFile } = await import('@data/core');
  const { datasetInfo } = await import('./info.js');
  const described = await describeFile(path);
  const descriptor: Package = {
    ...described,
    resources: await Promise.all(described.resources.map((resource) => asTable(resource, path))),
  };
  return datasetInfo({ dir: dirname(path), descriptor }, deps.fetch, deps.signal);
}

/** The folder of the local package the target names: a folder, or a descriptor's folder. */
function localPackage(local: string, target: string): string {
  const dir = statSync(local).isDirectory() ? local : dirname(local);
  if (DESCRIPTOR_NAMES.some((name) => existsSync(resolve(dir, name)))) return dir;
  throw new InputError(`${target} has no datapackage.json`);
}

/**
 * The use case of `data info`: what a dataset holds (title, description, resources and their
 * first rows), read from a local package or file, or from the hub.
 */
export async function runInfo(options: InfoOptions, deps: InfoDeps): Promise<DatasetInfo> {
  const { target } = options;
  const { datasetInfo } = await import('./info.js');
  const { parseTarget, noSuchDataset } = await import('./get.js');
  const local = resolve(deps.cwd, target);
  const here = deps.isLocal(target);
  if (here && statSync(local).isFile() && !isDescriptorPath(local))
    return dataFileInfo(local, deps);
  const dir = here ? localPackage(local, target) : undefined;
  const remote = dir ? undefined : parseTarget(target, deps.site());
  const { fetch, token } = remote
    ? await deps.hubReader()
    : { fetch: deps.fetch, token: undefined };
  const location = remote ? { descriptorUrl: remote.url } : { dir };
  return datasetInfo(location, fetch, deps.signal).catch((error: unknown) => {
    // A local descriptor that is not JSON or YAML, or is an alias bomb.
    if (!remote && (error instanceof SyntaxError || error instanceof YamlSyntaxError))
      throw new InputError(`${target}: the descriptor cannot be read: ${error.message}`);
    if (remote && error instanceof ApiError && error.status === 404)
      throw noSuchDataset(remote, token !== undefined && deps.signedIn(remote.url));
    throw error;
  });
}
