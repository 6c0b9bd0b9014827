/**
 * What changed between two versions of a data package: its properties, its resources
 * (added, removed, renamed), and for each table its schema and its rows, matched by the
 * primary key (or whole) and compared by their typed values, whatever each side's format.
 */
import { isDerived } from '../model/derived.js';
import type { ResourceDescriptor } from '../validator/descriptor/types.js';
import { asList } from '../validator/descriptor/rules.js';
import { inferResourceSchema, isTable } from '../validator/resource.js';
import type { DiffEvent } from './progress.js';
import { diffRows, type RowCounts, type RowSamples } from './rows.js';
import { canonical, diffSchemas, schemaOf, type SchemaDiff } from './schema.js';
import type { DiffSide, PackageLike } from './side.js';

export type { DiffSide } from './side.js';
export type { DiffEvent } from './progress.js';

export interface ResourceDiff {
  name: string;
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  /** The name it had in a, when it was renamed. */
  renamedFrom?: string;
  schema: SchemaDiff;
  rows: RowCounts;
  samples: RowSamples;
  /** Repeated keys left out of the comparison, on each side. */
  duplicates?: { a: number; b: number };
}

export interface PropertyChange {
  property: string;
  from: unknown;
  to: unknown;
}

export interface PackageDiff {
  a: string;
  b: string;
  properties: PropertyChange[];
  resources: ResourceDiff[];
}

export interface DiffOptions {
  /** Rows of each kind to show per resource. */
  limit: number;
  /** Memory for matching rows, in bytes; past it, more of each table waits on disk. */
  memory?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Hears each table as its turn comes, then its rows read and its parts matched. */
  onProgress?: ((event: DiffEvent) => void) | undefined;
}

/** Properties a hub adds to what it publishes, and the resources: not the publisher's. */
const NOT_COMPARED = new Set(['resources', '_cache', 'datahub', 'id', 'owner', 'ownerid']);

function originals(descriptor: PackageLike): ResourceDescriptor[] {
  return (descriptor.resources ?? []).filter(
    (resource) => typeof resource === 'object' && !isDerived(resource as Record<string, unknown>),
  );
}

function propertyChanges(a: PackageLike, b: PackageLike): PropertyChange[] {
  const changes: PropertyChange[] = [];
  for (const property of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (!NOT_COMPARED.has(property) && canonical(a[property]) !== canonical(b[property]))
      changes.push({ property, from: a[property] ?? null, to: b[property] ?? null });
  return changes;
}

const signature = (resource: ResourceDescriptor): string =>
  canonical([
    schemaOf(resource)?.fields.map((field) => [field.name, field.type ?? 'string']),
    schemaOf(resource)?.primaryKey,
  ]);

/** Pairs each resource of b with its version in a: same name, or renamed (same path, or same schema and key). */
function pairResources(
  a: ResourceDescriptor[],
  b: ResourceDescriptor[],
): [ResourceDescriptor | undefined, ResourceDescriptor | undefined][] {
  const unpairedA = new Set(a.filter((resource) => !b.some((each) => each.name === resource.name)));
  const pairs: [ResourceDescriptor | undefined, ResourceDescriptor | undefined][] = [];
  for (const resource of b) {
    let partner = a.find((each) => each.name === resource.name);
    if (!partner) {
      partner = [...unpairedA].find(
        (each) =>
          (typeof each.path === 'string' && each.path === resource.path) ||
          (each.schema !== undefined && signature(each) === signature(resource)),
      );
      if (partner) unpairedA.delete(partner);
    }
    pairs.push([partner, resource]);
  }
  for (const resource of a) if (unpairedA.has(resource)) pairs.push([resource, undefined]);
  return pairs;
}

const NO_ROWS = (): RowCounts => ({ added: 0, removed: 0, changed: 0, unchanged: 0, key: null });
const NO_SAMPLES = (): RowSamples => ({ added: [], removed: [], changed: [] });
const NO_SCHEMA = (): SchemaDiff => ({ added: [], removed: [], changed: [], keys: [] });

/** The key rows are matched by: the primary key b declares, if a has its fields too, else a's. */
function matchKey(
  a: ResourceDescriptor,
  b: ResourceDescriptor,
  columns: [string, string][],
): string[] | undefined {
  const inB = new Set(columns.map(([, name]) => name));
  const byA = new Map(columns.map(([inA, name]) => [inA, name]));
  const listB = asList(schemaOf(b)?.primaryKey);
  if (listB.length > 0 && listB.every((name) => inB.has(name))) return listB;
  const listA = asList(schemaOf(a)?.primaryKey);
  if (listA.length > 0 && listA.every((name) => byA.has(name)))
    return listA.map((name) => byA.get(name) ?? name);
  return undefined;
}

/** The fields both versions of a table have, each by its name in a and in b. */
function sharedColumns(
  a: ResourceDescriptor,
  b: ResourceDescriptor,
  renamed: Map<string, string>,
): [string, string][] {
  const fieldsB = schemaOf(b)?.fields.map((field) => field.name);
  if (!fieldsB || !schemaOf(a)) return [];
  const inA = new Map([...renamed].map(([nameA, nameB]) => [nameB, nameA]));
  return fieldsB.flatMap((name) => {
    const nameA = inA.get(name);
    return nameA === undefined ? [] : [[nameA, name] as [string, string]];
  });
}

/** The resource, with the other version's schema when it has none of its own. */
function borrowSchema(resource: ResourceDescriptor, other: ResourceDescriptor): ResourceDescriptor {
  const schema = schemaOf(other);
  return schemaOf(resource) || !schema ? resource : { ...resource, schema };
}

async function diffPair(
  a: { side: DiffSide; resource: ResourceDescriptor | undefined },
  b: { side: DiffSide; resource: ResourceDescriptor | undefined },
  options: DiffOptions,
  turn: { index: number; total: number },
): Promise<ResourceDiff> {
  const name = b.resource?.name ?? a.resource?.name ?? '';
  options.onProgress?.({ type: 'table', name, ...turn });
  if (!a.resource || !b.resource)
    return {
      name,
      status: a.resource ? 'removed' : 'added',
      schema: NO_SCHEMA(),
      rows: NO_ROWS(),
      samples: NO_SAMPLES(),
    };
  // A version published without a schema is read by the other's: they are the same table.
  const resourceA = borrowSchema(a.resource, b.resource);
  const resourceB = borrowSchema(b.resource, a.resource);
  const { diff: schema, renamed } = diffSchemas(schemaOf(resourceA), schemaOf(resourceB));
  const result: ResourceDiff = {
    name,
    status: 'unchanged',
    ...(resourceA.name !== resourceB.name ? { renamedFrom: resourceA.name } : {}),
    schema,
    rows: NO_ROWS(),
    samples: NO_SAMPLES(),
  };
  if (isTable(resourceA) && isTable(resourceB)) {
    const columns = schemaOf(resourceA) ? sharedColumns(resourceA, resourceB, renamed) : undefined;
    const rows = await diffRows(
      { side: a.side, resource: resourceA },
      { side: b.side, resource: resourceB },
      {
        columns,
        key: columns && matchKey(resourceA, resourceB, columns),
        limit: options.limit,
        memory: options.memory,
        signal: options.signal,
        onProgress: options.onProgress,
      },
    );
    result.rows = rows.rows;
    result.samples = rows.samples;
    if (rows.duplicates.a > 0 || rows.duplicates.b > 0) result.duplicates = rows.duplicates;
  }
  const { rows } = result;
  const schemaChanged =
    schema.added.length + schema.removed.length + schema.changed.length + schema.keys.length > 0;
  const rowsChanged = rows.added + rows.removed + rows.changed > 0;
  // Rows left out for a repeated key differ too: the tables are not the same.
  if (schemaChanged || rowsChanged || result.renamedFrom || result.duplicates)
    result.status = 'changed';
  return result;
}

/**
 * A side's resources, each local table without a schema given one inferred from its rows,
 * as `data validate` infers it, so that its rows are compared by type too.
 */
async function withSchemas(side: DiffSide): Promise<ResourceDescriptor[]> {
  const dir = side.base.dir;
  return Promise.all(
    originals(side.descriptor).map(async (resource) =>
      dir !== undefined && resource.schema === undefined && isTable(resource)
        ? { ...resource, schema: await inferResourceSchema(resource, dir) }
        : resource,
    ),
  );
}

export async function diffPackages(
  a: DiffSide,
  b: DiffSide,
  options: DiffOptions,
): Promise<PackageDiff> {
  const pairs = pairResources(await withSchemas(a), await withSchemas(b));
  const resources: ResourceDiff[] = [];
  for (const [index, [inA, inB]] of pairs.entries())
    resources.push(
      await diffPair({ side: a, resource: inA }, { side: b, resource: inB }, options, {
        index,
        total: pairs.length,
      }),
    );
  return {
    a: a.label,
    b: b.label,
    properties: propertyChanges(a.descriptor, b.descriptor),
    resources,
  };
}

/** Whether two versions are the same: no property, resource, schema or row changed. */
export function unchanged(diff: PackageDiff): boolean {
  return (
    diff.properties.length === 0 && diff.resources.every((each) => each.status === 'unchanged')
  );
}
