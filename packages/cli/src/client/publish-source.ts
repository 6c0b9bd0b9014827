import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { InputError, UsageError } from '@data/core';
import {
  isDescriptorPath,
  isYamlPath,
  packageDescriptor,
  readDescriptorFile,
  YamlSyntaxError,
} from '@data/core';
import type { PublishSource } from './publish.js';
import { kindOfNonFile, nameFromFile, resourcesOf } from '@data/core';
import type { Package, Report } from '@data/core';
import type { HeldDescriptor } from './validate.js';
import type { Draft } from '../init/draft.js';
import type { SheetsChoice } from './sheets.js';

/** A publish source and what to remove once it is published. */
export interface ResolvedSource extends PublishSource {
  /** A single data file's package, its schema inferred: publish may loosen it to the data. */
  inferred?: boolean;
  /** Sheets were chosen (`--sheets`): the descriptor held here is not the one on disk. */
  sheetsChosen?: boolean;
  cleanup(): Promise<void>;
}

/**
 * A descriptor file read as a Package: an object, whose other properties validation checks
 * before anything is published (what reads them sooner uses model/'s helpers).
 */
async function readDescriptor(file: string): Promise<Package> {
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
  return parsed as Package;
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
async function withReadme(dir: string, descriptor: Package): Promise<Package> {
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
 * A publish source found and named, before any data file is read: what `data publish` knows
 * before it asks for a credential (trusted publishing needs the dataset's name). `open`
 * reads the rest: a single file's schema inferred, and the sheets chosen.
 */
export interface LocatedSource {
  /** The dataset's name: the descriptor's, `--name`, or the single file's, if any. */
  name: string | undefined;
  open(): Promise<ResolvedSource>;
}

/**
 * What `data publish` takes is what `data validate` takes: a folder holding a
 * datapackage.json, a descriptor file (its folder is the package), or one data file, which
 * is published as a one-resource package named after the file (or `name`), its schema
 * inferred. Only the path and the descriptor are read here: no data file.
 */
export async function locatePublishSource(
  path: string,
  name: string | undefined,
  sheets: string | undefined,
): Promise<LocatedSource> {
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
  const choice =
    sheets === undefined ? undefined : (await import('./sheets.js')).parseSheets(sheets);
  if (single)
    return {
      name: name ?? nameFromFile(basename(path)),
      open: () => withSheets(() => describeSingle(path, name), choice),
    };
  const dir = info.isDirectory() ? path : dirname(path);
  const descriptorFile = info.isDirectory()
    ? await packageDescriptor(
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
      )
    : path;
  const descriptor = await withReadme(dir, await readDescriptor(descriptorFile));
  return {
    name: typeof descriptor.name === 'string' ? descriptor.name : undefined,
    open: () => withSheets(() => asJson({ dir, descriptor, descriptorFile }), choice),
  };
}

/** A single data file as a one-resource package, its schema inferred, in a file of its own. */
async function describeSingle(path: string, name: string | undefined): Promise<ResolvedSource> {
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

/** The source of `data publish` without sheets chosen on the command line. */
export async function resolvePublishSource(path: string, name?: string): Promise<ResolvedSource> {
  return (await locatePublishSource(path, name, undefined)).open();
}

/** The inferred descriptor replaced by one that fits the data better, in memory and on disk. */
export async function replaceInferred(source: ResolvedSource, descriptor: Package): Promise<void> {
  source.descriptor = descriptor;
  await writeFile(source.descriptorFile, `${JSON.stringify(descriptor, null, 2)}\n`);
}

/**
 * The source of `data publish` read, and the sheets chosen on the command line (a list as
 * parseSheets takes it) put in its descriptor: all of it on this computer, before the hub is
 * asked anything. What it made is removed if choosing the sheets fails.
 */
export async function openPublishSource(
  path: string,
  name: string | undefined,
  sheets: string | undefined,
): Promise<ResolvedSource> {
  return (await locatePublishSource(path, name, sheets)).open();
}

/** The source opened, then the sheets asked for chosen; what it made goes if that fails. */
async function withSheets(
  open: () => Promise<ResolvedSource>,
  choice: SheetsChoice | undefined,
): Promise<ResolvedSource> {
  const source = await open();
  if (choice === undefined) return source;
  try {
    const { chooseSheets } = await import('./sheets.js');
    source.descriptor = await chooseSheets(source.descriptor, source.dir, choice);
    source.sheetsChosen = true;
    return source;
  } catch (error) {
    await source.cleanup();
    throw error;
  }
}

/** Validates a source as `data validate` does, or a descriptor held in memory. */
export type ValidatePublished = (held?: HeldDescriptor) => Promise<Report>;

/**
 * The validation that decides whether to publish. A single data file's inferred schema is
 * loosened until the whole file validates, as `data init` does (its first rows may suggest
 * integers that a later row contradicts), and written in place of the inferred one; sheets
 * chosen on the command line, like that schema, are in the descriptor held here, not in a file.
 */
export async function validateForPublish(
  source: ResolvedSource,
  validate: ValidatePublished,
  signal: AbortSignal,
): Promise<Report> {
  if (source.sheetsChosen) return validate({ descriptor: source.descriptor, dir: source.dir });
  // A file that is no table is judged as `data validate` judges it (a PDF alone is no package).
  const draft = source.inferred ? inferredDraft(source.descriptor) : undefined;
  if (!draft) return validate();
  const { settleWith } = await import('../init/settle.js');
  const settled = await settleWith(
    draft,
    // A copy: Draft, an interface, is a Package once spread into an object of its own.
    (looser) => validate({ descriptor: { ...looser }, dir: source.dir }),
    signal,
  );
  await replaceInferred(source, { ...settled.draft });
  return settled.report;
}

/** A single data file's inferred package as `data init` drafts one, if it describes a table. */
function inferredDraft(descriptor: Package): Draft | undefined {
  const [resource] = resourcesOf(descriptor);
  if (typeof descriptor.name !== 'string' || !resource || !('schema' in resource)) return undefined;
  return {
    ...(descriptor.$schema === undefined ? {} : { $schema: descriptor.$schema }),
    name: descriptor.name,
    resources: descriptor.resources,
  };
}
