import type { TableSinks } from './table/row-sink.js';
import { stat } from 'node:fs/promises';
import type { MessagePort } from 'node:worker_threads';
import { asList } from './descriptor/rules.js';
import { isRemote } from '../model/paths.js';
import { formatOf, isTableFormat, noteFormat } from '../model/format.js';
import { rulesVersion } from './descriptor/paths.js';
import { isLfsPointer } from './lfs.js';
import { localContentFormat, TABLE_CONTENT } from '../files/content-format.js';
import type { ValidateEvent } from './events.js';
import type { ResourceDescriptor, SchemaDescriptor, StandardVersion } from './descriptor/types.js';
import { locate, SourceFailure, type Base, type Fetch } from './location.js';
import { reportError } from './report/errors.js';
import { TaskCollector, type TaskLimits } from './report/task.js';
import type { Task } from './report/types.js';
import { compileField } from './schema/field.js';
import { inferSchema, INFER_ROWS } from './schema/infer.js';
import { EncodingFailure } from './table/encoding.js';
import { inlineRecords } from './table/inline.js';
import type { ForeignKeyCheck } from './table/keys-check.js';
import { collectKeys } from './table/lookup.js';
import {
  readTable,
  type ReadOptions,
  type ReadResult,
  type RecordSink,
  type RowLimits,
} from './table/read.js';
import {
  cellText,
  DEFAULT_KEY_MEMORY,
  TableValidator,
  type TableKeys,
} from './table/table-validator.js';
import { fileChecks, hashPlan, readFile } from './file.js';
import type { LookupKeys } from './table/lookup-keys.js';
import { resolveDialect } from './table/dialect.js';
import { rangeSplitFor } from './table/range-split.js';
import type { SplitOptions } from './table/ranges.js';

export interface ResourceContext {
  version: StandardVersion;
  /** The version the package declares, which then sets the rules of every schema in it. */
  packageDeclared?: StandardVersion | undefined;
  base: Base;
  fetch: Fetch;
  signal?: AbortSignal | undefined;
  limits: TaskLimits;
  rowLimits?: RowLimits | undefined;
  onProgress?: ((event: ValidateEvent) => void) | undefined;
  resources: readonly ResourceDescriptor[];
  lookups: Map<string, Promise<LookupKeys>>;
  /** Bytes unique and primary keys may take in memory before they go to disk. */
  keyMemory?: number | undefined;
  /** Sinks for the rows of tables, as they are validated. */
  tableSinks?: TableSinks | undefined;
  /** How large local CSV files are split between two workers; false reads them in one pass. */
  split?: SplitOptions | false | undefined;
  /** The range worker the caller started, for the first table that splits. */
  takeRangeWorker?: (() => MessagePort | undefined) | undefined;
}

function paths(resource: ResourceDescriptor): string[] {
  return asList(resource.path);
}

/** Formats a name gives that the bytes may contradict: text, or no table's. */
const TEXT_FORMATS = new Set(['csv', 'tsv', 'txt']);

/**
 * Notes a resource whose format is not told and whose one local file says by its first
 * bytes that it is a workbook or Parquet while its name says text or no table (an .xlsx
 * saved as .csv, a Parquet file without its extension): it is read as what it is.
 */
export async function noteContentFormat(resource: ResourceDescriptor, base: Base): Promise<void> {
  if (resource.data !== undefined || resource.format || base.url) return;
  const format = formatOf(resource);
  const [path, ...more] = paths(resource);
  if (format !== undefined && isTableFormat(format) && !TEXT_FORMATS.has(format)) return;
  if (!path || more.length > 0 || isRemote(path)) return;
  const content = await localContentFormat(locate(path, base));
  if (content && TABLE_CONTENT.has(content)) noteFormat(resource, content);
}

/** Whether a resource is a table: by its inline data, its format, or its being described as one. */
export function isTable(resource: ResourceDescriptor): boolean {
  if (resource.data !== undefined) return Array.isArray(resource.data);
  const format = formatOf(resource);
  if (format !== undefined) return isTableFormat(format);
  return (
    resource.type === 'table' ||
    resource.profile === 'tabular-data-resource' ||
    resource.schema !== undefined
  );
}

/** The local paths of a resource whose files are Git LFS pointers. */
async function lfsPointers(resource: ResourceDescriptor, ctx: ResourceContext): Promise<string[]> {
  if (resource.data !== undefined || ctx.base.url) return [];
  const found: string[] = [];
  for (const path of paths(resource))
    if (await isLfsPointer(locate(path, ctx.base))) found.push(path);
  return found;
}

function placeOf(resource: ResourceDescriptor): string {
  if (resource.data !== undefined) return '<memory>';
  const list = paths(resource);
  return list.length > 1 ? `${list[0] ?? ''} (multipart)` : (list[0] ?? '');
}

export async function validateResource(
  resource: ResourceDescriptor,
  ctx: ResourceContext,
): Promise<Task> {
  await noteContentFormat(resource, ctx.base);
  const table = isTable(resource);
  const collector = new TaskCollector(
    resource.name,
    table ? 'table' : 'file',
    placeOf(resource),
    ctx.limits,
  );
  const plan = hashPlan(resource.hash);
  if (plan.warning) collector.warnings.push(plan.warning);
  // Pointers in place of the data are that one error each, not a table of their text.
  const pointers = await lfsPointers(resource, ctx);
  if (pointers.length > 0) {
    for (const path of pointers)
      collector.add(
        reportError(
          'source-error',
          `"${path}" is a Git LFS pointer, not the data: fetch the data with \`git lfs pull\``,
        ),
      );
    return collector.finish({});
  }
  if (!table) {
    const format = formatOf(resource);
    if (resource.schema !== undefined && format) {
      collector.warnings.push(
        `table checks are not supported for format "${format}": checked as a file`,
      );
    }
    const result = await guard(collector, () =>
      readFile(
        paths(resource).map((path) => locate(path, ctx.base)),
        plan.algorithms,
        ctx.fetch,
        ctx.signal,
      ),
    );
    return collector.finish(result ? fileChecks(resource, result, plan, collector) : {});
  }
  return validateTable(resource, ctx, collector, plan);
}

async function validateTable(
  resource: ResourceDescriptor,
  ctx: ResourceContext,
  collector: TaskCollector,
  plan: ReturnType<typeof hashPlan>,
): Promise<Task> {
  const read = {
    ...readOptions(resource, ctx, plan.algorithms),
    onBytes: await bytesReporter(resource, ctx),
  };
  const schema =
    (resource.schema as SchemaDescriptor | undefined) ??
    (await guard(collector, () => sampleSchema(resource, read)));
  if (!schema) return collector.finish({});
  const version = rulesVersion(ctx.packageDeclared, ctx.version, schema);
  const fields = schema.fields.map((field) => compileField(field, schema, version));
  const keys = await tableKeys(resource, schema, ctx, collector);
  const dialect = resolveDialect(
    typeof resource.dialect === 'object' ? resource.dialect : undefined,
    '',
    ',',
  );
  const sink = ctx.tableSinks?.(resource, ctx.resources.indexOf(resource), schema);
  const validator = new TableValidator(
    fields,
    dialect.layout,
    keys,
    schema.fieldsMatch ?? 'exact',
    collector,
    ctx.keyMemory,
    sink,
  );
  const keyMemory = ctx.keyMemory ?? DEFAULT_KEY_MEMORY;
  const split = await rangeSplitFor(
    {
      locations: read.locations,
      format: read.format,
      inline: resource.data !== undefined,
      onePass: sink !== undefined && sink.rowsWanted === undefined,
      rowLimits: ctx.rowLimits,
      options: ctx.split,
      takeWorker: ctx.takeRangeWorker,
    },
    validator,
    {
      schema,
      version,
      keys,
      fieldsMatch: schema.fieldsMatch ?? 'exact',
      limits: ctx.limits,
      keyMemory: keyMemory / 2,
      onOutcome: (outcome) => ctx.onProgress?.({ type: 'ranges', name: resource.name, ...outcome }),
    },
  );
  let result: ReadResult | undefined;
  try {
    const onBytes = split ? split.expectingRows(read.onBytes) : read.onBytes;
    result = await guard(
      collector,
      () => feed(resource, { ...read, split, onBytes }, validator),
      validator,
    );
    // A source that could not be read at all (missing, empty) is that one error: no header
    // was read, so there are no label errors to add to it.
    if (result || validator.rowNumber > 0) validator.finish();
    if (validator.trackers.length > 0)
      ctx.onProgress?.({
        type: 'keys',
        name: resource.name,
        budget: keyMemory,
        ...validator.keyUsage(),
        ...(split?.secondKeyBytes === undefined ? {} : { secondRange: split.secondKeyBytes }),
      });
  } finally {
    split?.stop();
    validator.discard();
  }
  const stats = { fields: fields.length, rows: validator.rows };
  if (!result) return collector.finish(stats);
  if (result.dialect)
    for (const what of result.dialect.sniffed) collector.warnings.push(`sniffed ${what}`);
  return collector.finish({ ...stats, ...fileChecks(resource, result, plan, collector) });
}

async function feed(
  resource: ResourceDescriptor,
  read: ReadOptions,
  sink: RecordSink,
): Promise<ReadResult> {
  if (resource.data === undefined) return readTable(read, sink);
  const records = inlineRecords(resource.data);
  if (typeof records === 'string') throw new SourceFailure('source-error', records);
  for (const record of records) {
    if (!sink.open) break;
    sink.record(record);
  }
  return { bytes: 0, digests: {}, encoding: undefined, dialect: undefined, complete: sink.open };
}

/** Every this many bytes a table's reading reports its progress. */
const REPORT_EVERY = 4 * 1024 * 1024;

/** Reports how far a table's reading is, against its local files' size when known. */
async function bytesReporter(
  resource: ResourceDescriptor,
  ctx: ResourceContext,
): Promise<((read: number) => void) | undefined> {
  const report = ctx.onProgress;
  if (!report) return undefined;
  const locations = paths(resource).map((path) => locate(path, ctx.base));
  const sizes = await Promise.all(
    locations.map(async (location) =>
      isRemote(location) ? undefined : (await stat(location).catch(() => undefined))?.size,
    ),
  );
  const total = sizes.every((size) => size !== undefined)
    ? sizes.reduce((sum: number, size) => sum + (size ?? 0), 0)
    : undefined;
  let reported = 0;
  return (read) => {
    if (read - reported < REPORT_EVERY) return;
    reported = read;
    report({ type: 'bytes', name: resource.name, read, total });
  };
}

function readOptions(
  resource: ResourceDescriptor,
  ctx: ResourceContext,
  hashes: string[],
): ReadOptions {
  return {
    locations: paths(resource).map((path) => locate(path, ctx.base)),
    encoding: resource.encoding,
    dialect: typeof resource.dialect === 'object' ? resource.dialect : undefined,
    defaultDelimiter: formatOf(resource) === 'tsv' ? '\t' : undefined,
    format: formatOf(resource),
    hashes,
    fetch: ctx.fetch,
    signal: ctx.signal,
    rowLimits: ctx.rowLimits,
    fields: isObjectSchema(resource.schema) ? resource.schema.fields : undefined,
  };
}

function isObjectSchema(schema: unknown): schema is SchemaDescriptor {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    Array.isArray((schema as { fields?: unknown }).fields)
  );
}

/**
 * The schema `data validate` would infer for a local table resource under `dir`, or
 * undefined for a resource that is not a table.
 */
export async function inferResourceSchema(
  resource: ResourceDescriptor,
  dir: string,
): Promise<SchemaDescriptor | undefined> {
  if (!isTable(resource)) return undefined;
  const fetchNothing: Fetch = () => Promise.reject(new Error('local files only'));
  const ctx = {
    version: 2,
    base: { dir },
    fetch: fetchNothing,
    limits: { limitErrors: 0 },
    resources: [resource],
    lookups: new Map(),
  } satisfies ResourceContext;
  return sampleSchema(resource, readOptions(resource, ctx, []));
}

async function sampleSchema(
  resource: ResourceDescriptor,
  read: ReadOptions,
): Promise<SchemaDescriptor> {
  const records: (readonly unknown[])[] = [];
  const sink = {
    record: (cells: readonly unknown[]) => {
      if (records.length <= INFER_ROWS) records.push(cells);
    },
    get open() {
      return records.length <= INFER_ROWS;
    },
  };
  try {
    await feed(resource, { ...read, hashes: [] }, sink);
  } catch (error) {
    // The full read reports bad bytes with their row; infer from the rows before them.
    if (!(error instanceof EncodingFailure)) throw error;
  }
  const dialect = typeof resource.dialect === 'object' ? resource.dialect : undefined;
  // The header is the last of its rows (a sheet's title rows above it are no data).
  const headerRows = dialect?.header === false ? [] : (dialect?.headerRows ?? [1]);
  const headerEnd = headerRows.length === 0 ? 0 : Math.max(...headerRows);
  const labels = headerEnd === 0 ? [] : (records[headerEnd - 1] ?? []).map(cellText);
  return inferSchema(labels, records.slice(headerEnd));
}

async function tableKeys(
  resource: ResourceDescriptor,
  schema: SchemaDescriptor,
  ctx: ResourceContext,
  collector: TaskCollector,
): Promise<TableKeys> {
  const index = (name: string): number => schema.fields.findIndex((field) => field.name === name);
  const foreignKeys: ForeignKeyCheck[] = [];
  for (const foreignKey of schema.foreignKeys ?? []) {
    const referenceName = foreignKey.reference.resource || resource.name;
    const target = ctx.resources.find((candidate) => candidate.name === referenceName);
    if (!target) {
      const note = `failed to handle a foreign key for resource "${resource.name}" as resource "${referenceName}" does not exist`;
      collector.add(reportError('resource-error', note));
      continue;
    }
    const referenceFieldNames = asList(foreignKey.reference.fields);
    const lookup = await guard(collector, () => lookupFor(target, referenceFieldNames, ctx));
    if (!lookup) continue;
    const fieldNames = asList(foreignKey.fields);
    foreignKeys.push({
      fields: fieldNames.map(index),
      fieldNames,
      referenceName,
      referenceFieldNames,
      lookup,
    });
  }
  return {
    primaryKey: asList(schema.primaryKey).map(index),
    uniqueKeys: (schema.uniqueKeys ?? []).map((names) => names.map(index)),
    foreignKeys,
  };
}

function lookupFor(
  target: ResourceDescriptor,
  fieldNames: string[],
  ctx: ResourceContext,
): Promise<LookupKeys> {
  const key = `${target.name}\u0000${fieldNames.join('\u0000')}`;
  let lookup = ctx.lookups.get(key);
  if (!lookup) {
    const read = readOptions(target, ctx, []);
    // A referenced table without a schema is read as validation reads it: with the schema
    // inferred from it, so that its values compare as the same types.
    const declared = target.schema as SchemaDescriptor | undefined;
    lookup = (declared ? Promise.resolve(declared) : sampleSchema(target, read)).then((schema) =>
      collectKeys(
        target,
        schema,
        fieldNames,
        rulesVersion(ctx.packageDeclared, ctx.version, schema),
        read,
        ctx.keyMemory ?? DEFAULT_KEY_MEMORY,
      ),
    );
    ctx.lookups.set(key, lookup);
  }
  return lookup;
}

/** Runs a read and turns loading failures into report errors. */
async function guard<T>(
  collector: TaskCollector,
  run: () => Promise<T>,
  rows?: TableValidator,
): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SourceFailure) collector.add(reportError(error.type, error.note));
    else if (error instanceof EncodingFailure) {
      const row = rows ? ` (row ${String(rows.rowNumber + 1)})` : '';
      collector.add(reportError('encoding-error', `${error.note}${row}`));
    } else throw error;
    return undefined;
  }
}
