import type { TableSinks } from './table/row-sink.js';
import { declaredVersion, detectVersion } from './descriptor/paths.js';
import { isYamlPath } from '../files/descriptor-file.js';
import { parseDescriptor, resolveReferences } from './descriptor/load.js';
import { checkPackage } from './descriptor/rules.js';
import { prepareProfiles } from './descriptor/ajv.js';
import { typoWarnings } from './descriptor/typos.js';
import type {
  DialectDescriptor,
  PackageDescriptor,
  ResourceDescriptor,
} from './descriptor/types.js';
import { readText, SourceFailure, type Base, type Fetch } from './location.js';
import { reportError } from './report/errors.js';
import { roundSeconds } from '../text/numbers.js';
import type { Report, ReportError, Task } from './report/types.js';
import { formatOf, isTableFormat } from '../model/format.js';
import { noteContentFormat, validateResource, type ResourceContext } from './resource.js';
import { basename, dirname } from 'node:path';
import { isSpreadsheet } from './sheets/formats.js';
import type { MessagePort } from 'node:worker_threads';
import type { RowLimits } from './table/read.js';
import type { SplitOptions } from './table/ranges.js';
import type { ValidateEvent } from './events.js';
import { nameFromFile, resolveSource, SourceNotFound, type Source } from './source.js';

export type { Report, ReportError, Task } from './report/types.js';
export { ERROR_TYPES, isErrorType } from './report/catalog.js';
export { SourceNotFound } from './source.js';
export { RemoteUnreachable } from './location.js';
export type { ValidateEvent } from './events.js';

export interface ValidateOptions {
  fetch: Fetch;
  signal?: AbortSignal;
  /** 0 means unlimited; the default is 1000. */
  limitErrors?: number;
  pickErrors?: string[];
  skipErrors?: string[];
  /** Likely typos of standard properties are errors, not warnings. */
  strict?: boolean;
  /** Bounds on one row of a table, for a reader that must bound its memory (the hub). */
  rowLimits?: RowLimits;
  /** For a single workbook: the sheet to read, by name or by number from 1. */
  sheet?: string;
  /** Bytes unique and primary keys may take in memory before they go to disk (1 GB). */
  keyMemory?: number;
  /** Sinks for the rows of tables, as they are validated (the hub's derived copies). */
  tableSinks?: TableSinks;
  /**
   * A local CSV file of 32 MB or more is validated as two byte ranges on two workers, with
   * the report one pass gives; false keeps one pass. `minBytes` and `at` move the threshold
   * and the split (for tests and benchmarks).
   */
  split?: SplitOptions | false;
  /** A range worker the caller started (see table/range-split.ts), for the first split. */
  rangeWorker?: MessagePort;
  onProgress?: (event: ValidateEvent) => void;
}

/** Validates a package folder, descriptor, URL or single data file. */
export async function validate(input: string, options: ValidateOptions): Promise<Report> {
  const started = performance.now();
  const source = await resolveSource(input);
  const parts =
    source.kind === 'table'
      ? await validateTableSource(source, options)
      : await validatePackage(source, options);
  return assemble(parts, started);
}

async function validatePackage(source: Source, options: ValidateOptions): Promise<Parts> {
  options.onProgress?.({ type: 'descriptor', location: source.location });
  const base: Base = source.url ? { url: source.url } : { dir: source.dir ?? '.' };
  let text: string;
  try {
    text = await readText(source.location, options.fetch, options.signal);
  } catch (error) {
    // The descriptor named on the command line is missing: the source does not exist.
    if (error instanceof SourceFailure && source.url && /HTTP 404$/.test(error.note))
      throw new SourceNotFound(`${source.url} answered 404: there is no descriptor there`);
    if (error instanceof SourceFailure)
      return { errors: [reportError('package-error', error.note)], tasks: [], warnings: [] };
    throw error;
  }
  const parsed = await parseDescriptor(text, 'descriptor', isYamlPath(source.location));
  if (!parsed.ok) return { errors: [parsed.error], tasks: [], warnings: [] };
  return validateParsed(parsed.value as PackageDescriptor, base, options);
}

/**
 * A one-resource package for a single data file, named after the file (or `name`), with the
 * schema that validation infers for it: what `data publish file.csv` publishes.
 */
export async function describeFile(
  path: string,
  name?: string,
): Promise<PackageDescriptor & { name: string }> {
  const file = basename(path);
  const resource: ResourceDescriptor = { name: name ?? nameFromFile(file), path: file };
  // Read as `data init` reads it: what a reader needs (encoding, dialect, header row) and
  // the schema, numbers and dates written in other ways recognised.
  const { readingOf, V2_PROFILE } = await import('./reading.js');
  const reading = await readingOf(resource, { dir: dirname(path) });
  return {
    ...(reading.needsV2 ? { $schema: V2_PROFILE } : {}),
    name: resource.name,
    resources: [
      { ...resource, ...reading.properties, ...(reading.schema ? { schema: reading.schema } : {}) },
    ],
  };
}

/**
 * Validates a descriptor held in memory whose relative paths name files under `dir`: the
 * hub's pipeline checks a package this way without writing a descriptor among its files.
 */
export async function validateDescriptor(
  descriptor: unknown,
  dir: string,
  options: ValidateOptions,
): Promise<Report> {
  const started = performance.now();
  return assemble(await validateParsed(descriptor as PackageDescriptor, { dir }, options), started);
}

async function validateParsed(
  descriptor: PackageDescriptor,
  base: Base,
  options: ValidateOptions,
): Promise<Parts> {
  const isObject =
    descriptor !== null && typeof descriptor === 'object' && !Array.isArray(descriptor);
  const version = isObject ? detectVersion(descriptor) : 1;
  // Likely typos of standard properties are allowed by the standards: warnings, unless strict.
  const typos = typoWarnings(descriptor, options.strict === true);
  const warnings = options.strict ? [] : typos;
  const errors = isObject ? await resolveReferences(descriptor, version, base, options.fetch) : [];
  await prepareProfiles();
  errors.push(...checkPackage(descriptor, version));
  if (options.strict) errors.push(...typos.map((typo) => reportError('package-error', typo)));
  if (errors.length > 0) return { errors, tasks: [], warnings };
  return {
    errors,
    warnings,
    tasks: await validateResources(
      descriptor.resources,
      { ...context(options, base), version, packageDeclared: declaredVersion(descriptor) },
      options,
    ),
  };
}

async function validateTableSource(
  source: Extract<Source, { kind: 'table' }>,
  options: ValidateOptions,
) {
  const base: Base = source.url ? { url: source.url } : { dir: source.dir ?? '.' };
  const named: ResourceDescriptor = {
    name: nameFromFile(source.file),
    path: source.url ?? source.file,
    ...(options.sheet === undefined ? {} : { dialect: sheetDialect(options.sheet) }),
  };
  // A file that starts as Parquet is read as Parquet, whatever its extension; without an
  // extension to tell, a file named on the command line is read as a table.
  await noteContentFormat(named, base);
  const resource: ResourceDescriptor =
    formatOf(named) === undefined ? { ...named, type: 'table' } : await withHeaderRow(named, base);
  // A single file named on the command line is read as a table: one of another format
  // (a README, a PDF) is no table, and no package either, so not "valid".
  const format = formatOf(resource);
  if (format !== undefined && !isTableFormat(format)) {
    const note = `"${source.file}" is not a table (format "${format}"): give a CSV, TSV, Excel (.xlsx, .xls) or OpenDocument (.ods) file, or a package whose datapackage.json describes it`;
    return { errors: [reportError('format-error', note)], warnings: [], tasks: [] };
  }
  return {
    errors: [],
    warnings: [],
    tasks: await validateResources([resource], { ...context(options, base), version: 2 }, options),
  };
}

/**
 * A local workbook's sheet with a title row above its header, read from the header down,
 * as `data init` describes it and as the reference validator infers it (the first row about
 * as wide as most rows is the header).
 */
async function withHeaderRow(
  resource: ResourceDescriptor,
  base: Base,
): Promise<ResourceDescriptor> {
  if (base.url || !isSpreadsheet(formatOf(resource))) return resource;
  const { readingOf } = await import('./reading.js');
  const reading = await readingOf(resource, base).catch(() => undefined);
  const headerRows = reading?.properties.dialect?.headerRows;
  if (!headerRows) return resource;
  return { ...resource, dialect: { ...(resource.dialect as DialectDescriptor), headerRows } };
}

function sheetDialect(sheet: string): DialectDescriptor {
  return /^[1-9]\d*$/.test(sheet) ? { sheetNumber: Number(sheet) } : { sheetName: sheet };
}

function context(
  options: ValidateOptions,
  base: Base,
): Omit<ResourceContext, 'version' | 'resources'> {
  return {
    base,
    fetch: options.fetch,
    signal: options.signal,
    rowLimits: options.rowLimits,
    keyMemory: options.keyMemory,
    tableSinks: options.tableSinks,
    split: options.split,
    takeRangeWorker: takeOnce(options.rangeWorker),
    onProgress: options.onProgress,
    limits: {
      limitErrors: options.limitErrors ?? 1000,
      ...(options.pickErrors ? { pick: options.pickErrors } : {}),
      ...(options.skipErrors ? { skip: options.skipErrors } : {}),
    },
    lookups: new Map(),
  };
}

/** A function that gives `value` once, then undefined. */
function takeOnce<T>(value: T | undefined): () => T | undefined {
  let held = value;
  return () => {
    const taken = held;
    held = undefined;
    return taken;
  };
}

async function validateResources(
  resources: ResourceDescriptor[],
  ctx: Omit<ResourceContext, 'resources'>,
  options: ValidateOptions,
): Promise<Task[]> {
  const tasks: Task[] = [];
  try {
    for (const [index, resource] of resources.entries()) {
      options.onProgress?.({
        type: 'resource',
        name: resource.name,
        index,
        total: resources.length,
      });
      tasks.push(await validateResource(resource, { ...ctx, resources }));
    }
  } finally {
    // Keys of referenced tables that went to disk are kept until every table has used them.
    for (const lookup of ctx.lookups.values()) (await lookup.catch(() => undefined))?.release();
  }
  return tasks;
}

/** What a validation found, before it is a report. */
interface Parts {
  errors: ReportError[];
  tasks: Task[];
  /** Warnings about the descriptor as a whole. */
  warnings: string[];
}

function assemble({ errors, tasks, warnings: packageWarnings }: Parts, started: number): Report {
  const taskErrors = tasks.reduce((sum, task) => sum + task.errors.length, 0);
  const warnings = tasks.reduce((sum, task) => sum + task.warnings.length, 0);
  return {
    valid: errors.length === 0 && tasks.every((task) => task.valid),
    stats: {
      tasks: tasks.length,
      errors: errors.length + taskErrors,
      warnings: warnings + packageWarnings.length,
      seconds: roundSeconds(performance.now() - started),
    },
    warnings: packageWarnings,
    errors,
    tasks,
  };
}
