import {
  counted,
  derivedNames,
  detectVersion,
  fileDigest,
  fileHead,
  type FlowSpec,
  formatOf,
  grouped,
  isDerived,
  localPaths,
  makeDirectory,
  noteContentFormat,
  OutOfMemory,
  type Package,
  RemoteUnreachable,
  type Resource,
  SAMPLE_BYTES,
  textReading,
  unsafeReason,
  validateAndDeriveIsolated,
  unusedName,
  zipName,
} from '@data/core';
import type { DerivedTable, Report } from '@data/core';
import { dirname, join, sep } from 'node:path';
import { stat } from 'node:fs/promises';
import {
  copyPath,
  derivedResources,
  isNormalFormCsv,
  zipResource,
  type TableCopiesInfo,
} from './derived-resources.js';
import { claimStaged, objectKeyOfUrl, quotaMessage, type Intake } from '../objects.js';
import { objectPath, packagePath } from '../../engines/storage/types.js';
import { HttpError } from '../../http-error.js';
import type { StepId } from './steps.js';
import type { LogFields } from '../../logger.js';

/** What the steps of one revision share. */
export interface Work {
  readonly hub: Intake;
  readonly ownerid: string;
  readonly dataset: string;
  readonly revision: number;
  readonly spec: FlowSpec;
  /** Links to the objects, at the package's paths; removed when the revision ends. */
  readonly workDir: string;
  /**
   * The package being published: as its flow spec gave it until the check step validates it
   * (steps before read its properties by their types), then valid.
   */
  descriptor: Package;
  /** Each local path of the package and the key of the object holding its bytes. */
  files: Record<string, string>;
  report?: Report;
  /** The previews of the tables, written while validating, in scratch. */
  derived?: DerivedTable[];
  /** Aborted past the processing time limit, or when the runner stops. */
  readonly signal: AbortSignal;
  /** What its log lines carry: the revision, and the request that queued it. */
  readonly logFields: LogFields;
}

export class StepFailure extends Error {
  constructor(readonly log: string[]) {
    super(log.join('; '));
  }
}

/** The descriptor's own list of resources (steps add to it and change its entries in place). */
function resources(work: Work): Resource[] {
  // Not validated yet in the first steps: a list that is none is validation's to report.
  const list: unknown = work.descriptor.resources;
  return Array.isArray(list) ? (list as Resource[]) : [];
}

/**
 * Whether a resource is delimited text as validation reads it (validator/resource.ts): its
 * declared format, else its one local file's bytes (a workbook named `.csv` is none), else
 * its name, `.txt` included.
 */
async function isCsv(work: Work, resource: Resource): Promise<boolean> {
  if (localPaths(resource).length === 0) return false;
  // A copy: what the bytes say is noted of it, not of the descriptor's resource.
  const described = { ...resource };
  await noteContentFormat(described, { dir: work.workDir });
  const format = formatOf(described);
  return format === 'csv' || format === 'tsv' || format === 'txt';
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
  // The spec's descriptor, an object (isFlowSpec), is a package only once the check step
  // validates it: until then what it holds is read by its type (resources()).
  work.descriptor = structuredClone(input.parameters.descriptor) as Package;
  // Copies a hub derived (a package fetched with `data get` and published again) are made
  // anew from their sources, never taken as sources themselves.
  if (Array.isArray(work.descriptor.resources))
    work.descriptor.resources = resources(work).filter((resource) => !isDerived(resource));
  const limits = work.hub.options.limits;
  if (resources(work).length > limits.resources)
    throw new StepFailure([
      `the package has ${counted(resources(work).length, 'resource')}; this hub takes at most ${grouped(limits.resources)}`,
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

/** A local CSV's first bytes, as the one reading of a file (validator/reading.ts) reads them. */
async function csvReading(work: Work, resource: Resource) {
  const path = localPaths(resource)[0];
  if (!path) return undefined;
  const head = await fileHead(join(work.workDir, path), SAMPLE_BYTES);
  // The one format rule (core model/format.ts), as validation reads the file: a mediatype
  // text/tab-separated-values is TSV here too.
  return textReading(head, formatOf(resource) ?? 'csv', {
    encoding: resource.encoding,
    dialect: resource.dialect,
  });
}

async function encoding(work: Work): Promise<Record<string, unknown>> {
  let detected = 0;
  for (const resource of resources(work)) {
    if (typeof resource.encoding === 'string' || !(await isCsv(work, resource))) continue;
    const reading = await csvReading(work, resource);
    if (!reading) continue;
    resource.encoding = reading.encoding;
    detected++;
  }
  return { detected };
}

async function csvKind(work: Work): Promise<Record<string, unknown>> {
  let sniffed = 0;
  for (const resource of resources(work)) {
    if (resource.dialect !== undefined || !(await isCsv(work, resource))) continue;
    const reading = await csvReading(work, resource);
    if (!reading) continue;
    const dialect = {
      ...(reading.delimiter === ',' ? {} : { delimiter: reading.delimiter }),
      ...(reading.quoteChar === undefined || reading.quoteChar === '"'
        ? {}
        : { quoteChar: reading.quoteChar }),
    };
    if (Object.keys(dialect).length > 0) {
      resource.dialect = dialect;
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
      { to: derivedDir, kinds: ['preview'] },
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
      `the data package is invalid: ${counted(report.stats.errors, 'error')}`,
      ...messages.slice(0, 20).map((error) => error.message),
    ]);
  }
  return { errors: 0, tasks: report.stats.tasks };
}

/**
 * Writes the revision's descriptor, report and previews, each replaced whole (the uploaded
 * data stays in the object store), and names every derived copy in the descriptor: the CSV
 * and JSON copies and the zip are made when first asked for (copies.ts). Their bytes count
 * against the owner's quota. Nothing reads them before the register step.
 */
async function dump(work: Work): Promise<Record<string, unknown>> {
  const prefix = packagePath(work.ownerid, work.dataset, work.revision);
  const { storage } = work.hub;
  const list = resources(work);
  const taken = new Set(list.map((resource) => resource.name));
  const previews: { key: string; file: string; bytes: number; md5: string }[] = [];
  const added: Resource[] = [];
  for (const table of work.derived ?? []) {
    const source = list[table.index];
    if (!source) continue;
    // Names no resource has, its own or derived: a table `t_csv` leaves `t`'s copy another.
    const names = derivedNames(table.name, taken);
    const path = copyPath(names['derived/preview'], 'json');
    const { length, md5 } = await fileDigest(table.preview);
    const hex = Buffer.from(md5, 'base64').toString('hex');
    previews.push({ key: `${prefix}${path}`, file: table.preview, bytes: length, md5 });
    const sameAsOriginal = await originalAsCopy(work, source);
    if (sameAsOriginal) work.files[copyPath(names['derived/csv'], 'csv')] = sameAsOriginal.key;
    added.push(
      ...derivedResources(
        { table, preview: { path, bytes: length, md5: hex }, sameAsOriginal },
        source,
        names,
        work.report,
      ),
    );
  }
  list.push(...added, zipResource(unusedName(zipName(work.dataset), taken)));
  const descriptor = `${JSON.stringify(work.descriptor, null, 2)}\n`;
  const report = JSON.stringify(work.report);
  const written =
    previews.reduce((total, preview) => total + preview.bytes, 0) +
    Buffer.byteLength(descriptor) +
    Buffer.byteLength(report);
  await chargeOwner(work, written);
  for (const preview of previews)
    await storage.putFile(preview.key, preview.file, {
      md5: preview.md5,
      length: preview.bytes,
      type: 'application/json',
    });
  await storage.putText(`${prefix}datapackage.json`, descriptor, 'application/json');
  await storage.putText(`${prefix}validation_report.json`, report, 'application/json');
  return { derived: added.length, previews: previews.length };
}

/** Counts the files written for a revision in its owner's quota, or fails it past the quota. */
async function chargeOwner(work: Work, bytes: number): Promise<void> {
  const { store, options } = work.hub;
  if ((await store.storageUsed(work.ownerid)) + bytes > options.maxStorageBytes)
    throw new StepFailure([quotaMessage(work.hub)]);
  await store.addRevisionBytes(work, bytes);
}

/** The original of a table when it is its own CSV copy: its object, size and MD5 (hex). */
async function originalAsCopy(
  work: Work,
  source: Resource,
): Promise<TableCopiesInfo['sameAsOriginal']> {
  if (!(await isNormalFormCsv(source, work.workDir))) return undefined;
  const path = localPaths(source)[0];
  const key = path ? work.files[path] : undefined;
  if (!path || !key) return undefined;
  const { size } = await stat(join(work.workDir, path));
  return { key, bytes: size, md5: key.slice(0, 32) };
}

/**
 * What a listing says of a revision: the bytes and rows the validation counted in its own
 * files (the copies the hub made are not counted), and its first licence.
 */
export function summaryOf(
  descriptor: Package,
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
