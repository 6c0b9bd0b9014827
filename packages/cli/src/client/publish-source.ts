import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { InputError, UsageError } from '@data/core';
import {
  isDescriptorPath,
  isYamlPath,
  packageDescriptor,
  readDescriptorFile,
  YamlSyntaxError,
} from '@data/core';
import type { PublishSource } from './publish.js';
import { kindOfNonFile } from '@data/core';

/** A publish source and what to remove once it is published. */
export interface ResolvedSource extends PublishSource {
  /** A single data file's package, its schema inferred: publish may loosen it to the data. */
  inferred?: boolean;
  cleanup(): Promise<void>;
}

async function readDescriptor(file: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = await readDescriptorFile(file);
  } catch (error) {
    if (error instanceof YamlSyntaxError)
      throw new InputError(`${file} is not readable YAML: ${error.message}`);
    throw new InputError(
      `${file} is not a readable ${isYamlPath(file) ? 'YAML' : 'JSON'} descriptor`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InputError(`${file} is not a descriptor (an object)`);
  return parsed as Record<string, unknown>;
}

/**
 * A package described in YAML: the hub takes JSON, so the same descriptor is sent as JSON
 * from a file of its own, removed once published.
 */
async function asJson(source: Omit<ResolvedSource, 'cleanup'>): Promise<ResolvedSource> {
  if (!isYamlPath(source.descriptorFile)) return { ...source, cleanup: () => Promise.resolve() };
  const folder = await mkdtemp(join(tmpdir(), 'data-publish-'));
  const descriptorFile = join(folder, 'datapackage.json');
  await writeFile(descriptorFile, `${JSON.stringify(source.descriptor, null, 2)}\n`);
  return {
    ...source,
    descriptorFile,
    cleanup: () => rm(folder, { recursive: true, force: true }),
  };
}

const README_BYTES = 1024 * 1024;

/**
 * The package's README.md, carried in the descriptor's `readme` as the old DataHub CLI
 * carried it: the hub shows it on the dataset's page and puts it in the dataset's zip.
 */
async function withReadme(
  dir: string,
  descriptor: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (descriptor.readme !== undefined) return descriptor;
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = names.find((name) => /^readme\.md$/i.test(name));
  if (!found) return descriptor;
  const file = join(dir, found);
  const info = await stat(file);
  if (!info.isFile()) return descriptor;
  if (info.size > README_BYTES)
    throw new InputError(
      `${file} is larger than 1 MB`,
      'a README is read on the dataset page: put long documents in the package as resources',
    );
  return { ...descriptor, readme: await readFile(file, 'utf8') };
}

/**
 * What `data publish` takes is what `data validate` takes: a folder holding a
 * datapackage.json, a descriptor file (its folder is the package), or one data file, which
 * is published as a one-resource package named after the file (or `name`), its schema
 * inferred.
 */
export async function resolvePublishSource(path: string, name?: string): Promise<ResolvedSource> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new InputError(`"${path}" does not exist`);
  if (!info.isDirectory() && !info.isFile())
    throw new InputError(`"${path}" is ${kindOfNonFile(info)}, not a file`);
  const single = !info.isDirectory() && !isDescriptorPath(path);
  if (name !== undefined && !single)
    throw new UsageError(
      '--name names the package made from a single data file',
      'a package\'s name is the "name" of its datapackage.json',
    );
  if (info.isDirectory()) {
    const descriptorFile = await packageDescriptor(
      path,
      (message, missing) =>
        new InputError(
          message,
          missing
            ? {
                hint: 'publish a single data file, or describe the folder first',
                reason: 'no-descriptor',
              }
            : undefined,
        ),
    );
    return asJson({
      dir: path,
      descriptor: await withReadme(path, await readDescriptor(descriptorFile)),
      descriptorFile,
    });
  }
  if (!single)
    return asJson({
      dir: dirname(path),
      descriptor: await withReadme(dirname(path), await readDescriptor(path)),
      descriptorFile: path,
    });
  const { describeFile } = await import('@data/core');
  const descriptor = await describeFile(path, name);
  const folder = await mkdtemp(join(tmpdir(), 'data-publish-'));
  const descriptorFile = join(folder, 'datapackage.json');
  await writeFile(descriptorFile, `${JSON.stringify(descriptor, null, 2)}\n`);
  return {
    dir: dirname(path),
    descriptor,
    descriptorFile,
    inferred: true,
    cleanup: () => rm(folder, { recursive: true, force: true }),
  };
}

/** The inferred descriptor replaced by one that fits the data better, in memory and on disk. */
export async function replaceInferred(
  source: ResolvedSource,
  descriptor: Record<string, unknown>,
): Promise<void> {
  source.descriptor = descriptor;
  await writeFile(source.descriptorFile, `${JSON.stringify(descriptor, null, 2)}\n`);
}
