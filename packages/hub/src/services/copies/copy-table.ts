import { stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { formatOf, makeDirectory, validateAndDeriveIsolated } from '@data/core';
import type { Package, Resource, SchemaDescriptor } from '@data/core';
import type { HubParts } from '../../parts.js';
import type { CopyJob } from './copy-job.js';
import { storedKey, type Published } from '../published.js';
import { contentType } from '../../content-type.js';

/** What a derived resource is a copy of, and in which form. */
export interface CopyWanted {
  kind: 'csv' | 'json' | 'parquet' | 'zip';
  /** The derived resource, as the revision's descriptor names it. */
  resource: Resource;
  /** The index of the table it is made from (all but the zip). */
  source: number;
}

/** Properties of a package that decide how its tables are read: its version above all. */
const PACKAGE_RULES = ['$schema', 'profile'];

/**
 * A table's schema as a copy needs it: its fields and how they are read, without the
 * constraints and keys the publication checked already (a copy only casts).
 */
function castingSchema(schema: Resource['schema']): Resource['schema'] {
  // A descriptor may say null, which the model's type does not (derived-resources.ts).
  if (typeof schema !== 'object' || (schema as unknown) === null) return schema;
  const rest = without(schema, ['primaryKey', 'foreignKeys', 'uniqueKeys']);
  const fields = Array.isArray(rest.fields) ? rest.fields : [];
  return { ...rest, fields: fields.map((field) => without(field, ['constraints'])) };
}

/** The object without these properties (none of them one its type requires). */
function without<T extends object>(object: T, keys: readonly string[]): T {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key))) as T;
}

/** Whether a table's rows are inline in its descriptor (`data`), with no file to read. */
function isInline(source: Resource): boolean {
  return source.path === undefined && Array.isArray(source.data);
}

/**
 * What a table's copies are made from: the stored files of the table, its paths in order
 * (none for a table whose rows are inline in the descriptor, `data`), or undefined when
 * there is nothing to copy it from: a path is not one of the revision's files.
 */
export function tableFiles(pkg: Published, source: Resource): string[] | undefined {
  if (isInline(source)) return [];
  if (source.path === undefined) return undefined;
  const given = Array.isArray(source.path) ? (source.path as unknown[]) : [source.path];
  const keys: string[] = [];
  for (const path of given) {
    const key = typeof path === 'string' ? storedKey(pkg.files, pkg.prefix, path) : undefined;
    if (!key) return undefined;
    keys.push(key);
  }
  return keys;
}

/**
 * Where the copy's reading finds the table's bytes: a link to each stored file in the
 * copy's folder, or, in a store that serves reads itself, a signed URL of it, read as a
 * stream, so that the first rows are copied before the rest is fetched.
 */
async function locations(
  hub: Pick<HubParts, 'options' | 'storage'>,
  pkg: Published,
  source: Resource,
  dir: string,
): Promise<{ paths: string[]; hosts: string[] }> {
  const keys = tableFiles(pkg, source);
  if (!keys) throw new Error('a file of the table is not stored');
  const given = Array.isArray(source.path) ? source.path : [source.path ?? ''];
  const paths: string[] = [];
  const hosts: string[] = [];
  for (const [index, key] of keys.entries()) {
    const path = given[index] ?? '';
    if (hub.storage.direct) {
      const url = await hub.storage.direct.presignGet(
        key,
        { name: `${String(index)}${extname(path)}`, type: contentType(path) },
        hub.options.limits.processingSeconds + 60,
      );
      hosts.push(new URL(url).host);
      paths.push(url);
    } else {
      const local = `${String(index)}${extname(path).toLowerCase()}`;
      await hub.storage.materialize(key, join(dir, 'source', local));
      paths.push(local);
    }
  }
  return { paths, hosts };
}

/**
 * The schema a copy's descriptor declares, which says how its cells are written: a revision
 * published before copies were typed declares the original's, read as the original is written.
 */
function declaredSchema(copy: Resource): SchemaDescriptor | undefined {
  const schema = copy.schema as SchemaDescriptor | undefined;
  return typeof schema === 'object' && Array.isArray(schema.fields) ? schema : undefined;
}

/** The path and format a copy reads a stored table by: its files where `locations` put them. */
function readFrom(source: Resource, paths: string[]): Pick<Resource, 'path' | 'format'> {
  // Told by the original's name: a signed URL's ends in its query.
  const format = formatOf(source);
  return {
    path: paths.length === 1 && !Array.isArray(source.path) ? paths[0] : paths,
    ...(format ? { format } : {}),
  };
}

/** Makes the CSV or JSON copy of one table into the job's file, as the publication read it. */
export async function makeTableCopy(
  hub: Pick<HubParts, 'options' | 'storage'>,
  pkg: Published,
  wanted: CopyWanted,
  job: CopyJob,
  dir: string,
  signal: AbortSignal,
): Promise<void> {
  const source = pkg.descriptor.resources[wanted.source];
  if (!source || wanted.kind === 'zip') throw new Error('the table is not in the revision');
  await makeDirectory(join(dir, 'source'));
  // Inline rows are read from the descriptor, by the same typed reading as a file's.
  const { paths, hosts } = isInline(source)
    ? { paths: [], hosts: [] }
    : await locations(hub, pkg, source, dir);
  const resource: Resource = {
    ...without(source, ['bytes', 'hash']),
    ...(isInline(source) ? {} : readFrom(source, paths)),
    ...(source.schema !== undefined ? { schema: castingSchema(source.schema) } : {}),
  };
  const descriptor: Package = { resources: [resource] };
  for (const rule of PACKAGE_RULES)
    if (pkg.descriptor[rule] !== undefined) descriptor[rule] = pkg.descriptor[rule];
  const { limits } = hub.options;
  const { report, derived } = await validateAndDeriveIsolated(
    { descriptor, dir: join(dir, 'source') },
    {
      silenceMs: 30_000,
      allowHosts: hosts,
      signal,
      heapMb: limits.processingMemoryMb,
      rowLimits: {
        maxRowChars: limits.rowChars,
        maxColumns: limits.columns,
        maxSharedTextBytes: limits.processingMemoryMb * 1024 * 1024,
      },
      onWritten: (_kind, written) => job.grow(written),
    },
    { to: dir, kinds: [wanted.kind], remoteToo: true, csvSchema: declaredSchema(wanted.resource) },
  );
  const made = derived[0];
  if (!report.valid || !made) {
    const first = [...report.errors, ...report.tasks.flatMap((task) => task.errors)][0];
    throw new Error(first?.message ?? 'the table could not be read');
  }
  job.finish((await stat(made[wanted.kind])).size);
}
