import { makeDirectory } from '../files/directories.js';
import { dirname, join, sep } from 'node:path';
import { TextDecoder } from 'node:util';
import { OutOfMemory, validateAndDeriveIsolated } from '../validator/isolated.js';
import { PREVIEW_ROWS, type DerivedTable } from '../validator/derive.js';
import { writeDatasetZip, type ZipEntry } from './dataset-zip.js';
import { rm, writeFile } from 'node:fs/promises';
import { RemoteUnreachable } from '../validator/location.js';
import { claimStaged, objectKeyOfUrl } from './rawstore.js';
import { DERIVED_FOLDER, objectPath, packagePath } from './storage/types.js';
import { isDerived } from '../validator/descriptor/derived.js';
import { detectVersion, isRemote, unsafeReason } from '../validator/descriptor/paths.js';
import {
  bomOf,
  canonicalEncoding,
  detectEncoding,
  SAMPLE_BYTES,
} from '../validator/table/encoding.js';
import { sniffDelimiter } from '../validator/table/dialect.js';
import { fileHead } from '../files/chunks.js';
import { fileDigest } from '../transfers/digest.js';
import type { Report } from '../validator/index.js';
import type { Hub } from './context.js';
import { HttpError } from './http.js';
import type { FlowSpec } from './pipeline-store.js';
import type { StepId } from './steps.js';

/** What the steps of one revision share. */
export interface Work {
  readonly hub: Hub;
  readonly ownerid: string;
  readonly dataset: string;
  readonly revision: number;
  readonly spec: FlowSpec;
  /** Links to the objects, at the package's paths; removed when the revision ends. */
  readonly workDir: string;
  descriptor: Record<string, unknown>;
  /** Each local path of the package and the key of the object holding its bytes. */
  files: Record<string, string>;
  report?: Report;
  /** The CSV and JSON copies of the tables, written while validating, in scratch. */
  derived?: DerivedTable[];
  /** Aborted past the processing time limit, or when the runner stops. */
  readonly signal: AbortSignal;
}

export class StepFailure extends Error {
  constructor(readonly log: string[]) {
    super(log.join('; '));
  }
}

type Resource = Record<string, unknown> & { name?: unknown; path?: unknown; format?: unknown };

function resources(work: Work): Resource[] {
  const list = work.descriptor.resources;
  return Array.isArray(list) ? (list as Resource[]) : [];
}

function localPaths(resource: Resource): string[] {
  const paths = Array.isArray(resource.path) ? (resource.path as unknown[]) : [resource.path];
  return paths.filter((path): path is string => typeof path === 'string' && !isRemote(path));
}

function isCsv(resource: Resource): boolean {
  const format = typeof resource.format === 'string' ? resource.format.toLowerCase() : undefined;
  const path = localPaths(resource)[0] ?? '';
  return (
    format === 'csv' || format === 'tsv' || (format === undefined && /\.(csv|tsv)$/i.test(path))
  );
}

/** Why a set of paths cannot all be files of one folder: one is the other's parent. */
function pathClash(paths: string[]): string | undefined {
  const all = new Set(paths);
  for (const path of paths) {
    const segments = path.split('/');
    for (let end = 1; end < segments.length; end++) {
      const parent = segments.slice(0, end).join('/');
      if (all.has(parent)) return `"${parent}" is a file and the folder of "${path}"`;
    }
  }
  return undefined;
}

/**
 * Finds the stored object of every local resource path, among the objects this owner
 * holds only, and lays the package out for validation as links in a fresh folder. The
 * folder is only read: nothing is ever written through a link to a stored object.
 */
async function load(work: Work): Promise<Record<string, unknown>> {
  const input = work.spec.inputs[0];
  if (!input) throw new StepFailure(['the flow spec has no input']);
  work.descriptor = structuredClone(input.parameters.descriptor);
  // Copies a hub derived (a package fetched with `data get` and published again) are made
  // anew from their sources, never taken as sources themselves.
  if (Array.isArray(work.descriptor.resources))
    work.descriptor.resources = resources(work).filter((resource) => !isDerived(resource));
  const limits = work.hub.options.limits;
  if (resources(work).length > limits.resources)
    throw new StepFailure([
      `the package has ${String(resources(work).length)} resources; this hub takes at most ${String(limits.resources)}`,
    ]);
  const mapping = input.parameters['resource-mapping'];
  const version = detectVersion(work.descriptor);
  const problems: string[] = [];
  const paths = [...new Set(resources(work).flatMap(localPaths))];
  for (const path of paths) {
    const url = mapping[path];
    // The old client fills the mapping without waiting for it: fall back to the object
    // this owner last authorized for the path.
    const key =
      (typeof url === 'string' ? objectKeyOfUrl(url) : undefined) ??
      (await work.hub.store.lastUpload(work.ownerid, path));
    const unsafe = unsafeReason(path, version);
    if (unsafe) problems.push(`path "${path}" is not safe (${unsafe})`);
    else if (!key || !(await holdsOrClaims(work, key)))
      problems.push(`no stored object of yours for "${path}": upload it first`);
    else work.files[path] = key;
  }
  const clash = pathClash(Object.keys(work.files));
  if (clash) problems.push(`the resource paths clash: ${clash}`);
  if (problems.length > 0) throw new StepFailure(problems);
  await makeDirectory(work.workDir);
  for (const [path, key] of Object.entries(work.files)) {
    const target = join(work.workDir, path);
    await makeDirectory(dirname(target));
    await work.hub.storage.materialize(objectPath(key), target);
  }
  return { files: paths.length };
}

/** Whether the owner holds the object, taking in what the owner put at a presigned URL. */
async function holdsOrClaims(work: Work, key: string): Promise<boolean> {
  if (await work.hub.store.holds(work.ownerid, key)) return true;
  try {
    return await claimStaged(work.hub, work.ownerid, key, work.spec.meta.findability === 'private');
  } catch (error) {
    if (error instanceof HttpError) throw new StepFailure([error.message]);
    throw error;
  }
}

async function encoding(work: Work): Promise<Record<string, unknown>> {
  let detected = 0;
  for (const resource of resources(work).filter(isCsv)) {
    if (typeof resource.encoding === 'string') continue;
    const path = localPaths(resource)[0];
    if (!path) continue;
    const bytes = await fileHead(join(work.workDir, path), SAMPLE_BYTES);
    resource.encoding = bomOf(bytes)?.encoding ?? canonicalEncoding(await detectEncoding(bytes));
    detected++;
  }
  return { detected };
}

async function csvKind(work: Work): Promise<Record<string, unknown>> {
  let sniffed = 0;
  for (const resource of resources(work).filter(isCsv)) {
    if (resource.dialect !== undefined) continue;
    const path = localPaths(resource)[0];
    if (!path) continue;
    const text = new TextDecoder(
      typeof resource.encoding === 'string' ? resource.encoding : 'utf-8',
    ).decode(await fileHead(join(work.workDir, path), SAMPLE_BYTES));
    const delimiter = sniffDelimiter(text, '"');
    if (delimiter && delimiter !== ',') {
      resource.dialect = { delimiter };
      sniffed++;
    }
  }
  return { sniffed };
}

/** The report as users see it: no path of the hub's machine in any message. */
function withoutServerPaths(work: Work, report: Report): Report {
  const text = JSON.stringify(report)
    .replaceAll(JSON.stringify(`${work.workDir}${sep}`).slice(1, -1), '')
    .replaceAll(JSON.stringify(work.hub.options.dataDir).slice(1, -1), '[hub]');
  return JSON.parse(text) as Report;
}

async function check(work: Work): Promise<Record<string, unknown>> {
  const { limits, fetchHosts } = work.hub.options;
  let report: Report;
  try {
    const derivedDir = `${work.workDir}.derived`;
    await makeDirectory(derivedDir);
    ({ report, derived: work.derived } = await validateAndDeriveIsolated(
      { descriptor: work.descriptor, dir: work.workDir },
      {
        silenceMs: 30_000,
        allowHosts: fetchHosts,
        signal: work.signal,
        heapMb: limits.processingMemoryMb,
        // Key tables live outside the heap: past the same figure they go to disk.
        keyMemory: limits.processingMemoryMb * 1024 * 1024,
        rowLimits: {
          maxRowChars: limits.rowChars,
          maxColumns: limits.columns,
          // Kept outside the worker's heap, so bounded here by the same figure.
          maxSharedTextBytes: limits.processingMemoryMb * 1024 * 1024,
        },
      },
      derivedDir,
    ));
  } catch (error) {
    if (error instanceof RemoteUnreachable)
      throw new StepFailure([`${error.message}: try publishing again later`]);
    if (error instanceof OutOfMemory)
      throw new StepFailure([
        `the package needs more memory to validate than this hub allows (${String(limits.processingMemoryMb)} MB): very long lines or very many columns`,
      ]);
    throw error;
  }
  work.report = withoutServerPaths(work, report);
  if (!report.valid) {
    const messages = [
      ...work.report.errors,
      ...work.report.tasks.flatMap((task) =>
        task.errors.map((error) => ({ ...error, message: `${task.name}: ${error.message}` })),
      ),
    ];
    throw new StepFailure([
      `the data package is invalid: ${String(report.stats.errors)} errors`,
      ...messages.slice(0, 20).map((error) => error.message),
    ]);
  }
  return { errors: 0, tasks: report.stats.tasks };
}

/**
 * Writes the revision's descriptor, report, derived copies and zip, each replaced whole
 * (the uploaded data stays in the object store). Nothing reads them before the register step.
 */
async function dump(work: Work): Promise<Record<string, unknown>> {
  const prefix = packagePath(work.ownerid, work.dataset, work.revision);
  const { storage } = work.hub;
  const copies = await storeDerived(work, prefix);
  await storeZip(work, prefix, copies);
  await storage.putText(
    `${prefix}datapackage.json`,
    `${JSON.stringify(work.descriptor, null, 2)}\n`,
    'application/json',
  );
  await storage.putText(
    `${prefix}validation_report.json`,
    JSON.stringify(work.report),
    'application/json',
  );
  return { derived: copies.length };
}

const DERIVED_COPIES = [
  { suffix: 'csv', format: 'csv', type: 'derived/csv', mediatype: 'text/csv' },
  { suffix: 'json', format: 'json', type: 'derived/json', mediatype: 'application/json' },
  { suffix: 'csv_preview', format: 'json', type: 'derived/preview', mediatype: 'application/json' },
] as const;

/**
 * Stores the CSV and JSON copies and the preview of each table beside the revision's
 * descriptor and names them in it as derived resources, as the original service recorded
 * them: `<name>_csv`, `<name>_json` and `<name>_csv_preview`, each saying which resource it
 * comes from. Returns each copy's path and scratch file, for the zip.
 */
async function storeDerived(work: Work, prefix: string): Promise<ZipEntry[]> {
  const list = resources(work);
  const taken = new Set(list.map((resource) => resource.name));
  const stored: ZipEntry[] = [];
  for (const table of work.derived ?? []) {
    const source = list[table.index];
    if (!source) continue;
    for (const copy of DERIVED_COPIES) {
      const name = `${table.name}_${copy.suffix}`;
      // A resource of the package's own by that name keeps it.
      if (taken.has(name)) continue;
      const path = `${DERIVED_FOLDER}${name}.${copy.format}`;
      const file =
        copy.type === 'derived/csv'
          ? table.csv
          : copy.type === 'derived/json'
            ? table.json
            : table.preview;
      const { length, md5 } = await fileDigest(file);
      await work.hub.storage.putFile(`${prefix}${path}`, file, {
        md5,
        length,
        type: copy.mediatype,
      });
      list.push({
        name,
        path,
        format: copy.format,
        mediatype: copy.mediatype,
        encoding: 'utf-8',
        bytes: length,
        hash: Buffer.from(md5, 'base64').toString('hex'),
        ...(copy.format === 'csv' && source.schema !== undefined ? { schema: source.schema } : {}),
        datahub: {
          type: copy.type,
          derivedFrom: [table.name],
          rows: copy.type === 'derived/preview' ? Math.min(table.rows, PREVIEW_ROWS) : table.rows,
        },
      });
      stored.push({ path, file });
    }
  }
  return stored;
}

/**
 * Stores the zip of the whole revision, `<dataset>_zip`, as the original service named it,
 * and names it in the descriptor. The descriptor inside the zip is the one before this
 * resource was added: a file cannot hold its own hash.
 */
async function storeZip(work: Work, prefix: string, copies: ZipEntry[]): Promise<void> {
  const name = `${work.dataset}_zip`;
  if (resources(work).some((resource) => resource.name === name)) return;
  const path = `${DERIVED_FOLDER}${name}.zip`;
  const file = `${work.workDir}.zip`;
  const originals = Object.keys(work.files)
    .sort()
    .map((local) => ({ path: local, file: join(work.workDir, local) }));
  const readme = work.descriptor.readme;
  try {
    if (typeof readme === 'string' && !work.files['README.md']) {
      await writeFile(`${work.workDir}.readme`, readme);
      originals.push({ path: 'README.md', file: `${work.workDir}.readme` });
    }
    await writeDatasetZip(file, work.dataset, `${JSON.stringify(work.descriptor, null, 2)}\n`, [
      ...originals,
      ...copies,
    ]);
    const { length, md5 } = await fileDigest(file);
    await work.hub.storage.putFile(`${prefix}${path}`, file, {
      md5,
      length,
      type: 'application/zip',
    });
    resources(work).push({
      name,
      path,
      format: 'zip',
      mediatype: 'application/zip',
      bytes: length,
      hash: Buffer.from(md5, 'base64').toString('hex'),
      datahub: { type: 'derived/zip' },
    });
  } finally {
    await rm(file, { force: true });
    await rm(`${work.workDir}.readme`, { force: true });
  }
}

/**
 * What a listing says of a revision: the bytes and rows the validation counted in its own
 * files (the copies the hub made are not counted), and its first licence.
 */
export function summaryOf(
  descriptor: Record<string, unknown>,
  report: Report | undefined,
): { bytes: number | null; rows: number | null; license: string | null } {
  const sum = (values: (number | undefined)[]): number | null =>
    values.some((value) => value !== undefined)
      ? values.reduce<number>((total, value) => total + (value ?? 0), 0)
      : null;
  const tasks = report?.tasks ?? [];
  const licenses = descriptor.licenses;
  const first = Array.isArray(licenses)
    ? (licenses[0] as Record<string, unknown> | undefined)
    : undefined;
  const named = [first?.name, first?.title, first?.path].find(
    (value): value is string => typeof value === 'string',
  );
  return {
    bytes: sum(tasks.map((task) => task.stats.bytes)),
    rows: sum(tasks.map((task) => task.stats.rows)),
    license: named ?? null,
  };
}

async function register(work: Work): Promise<Record<string, unknown>> {
  const text = (key: string): string | null =>
    typeof work.descriptor[key] === 'string' ? work.descriptor[key] : null;
  await work.hub.store.updateRevision(work, {
    descriptor: JSON.stringify(work.descriptor),
    files: JSON.stringify(work.files),
  });
  await work.hub.store.publish(work, {
    title: text('title'),
    description: text('description'),
    ...summaryOf(work.descriptor, work.report),
  });
  return {};
}

export const STEP_RUNNERS: Record<StepId, (work: Work) => Promise<Record<string, unknown>>> = {
  load,
  encoding,
  'csv-kind': csvKind,
  validate: check,
  dump,
  register,
};
