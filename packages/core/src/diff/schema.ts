import type {
  FieldDescriptor,
  ResourceDescriptor,
  SchemaDescriptor,
} from '../validator/descriptor/types.js';

/** A field's properties that do not change how its cells are cast. */
const NOT_CASTING = new Set(['name', 'title', 'description', 'example', 'constraints', 'rdfType']);

/** What decides how a field's cells are cast: its properties but its name and what describes it. */
export function castingOf(field: FieldDescriptor): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(field).filter(([property]) => !NOT_CASTING.has(property)),
  );
}

/** A resource's schema, when it is given in place (not by reference). */
export function schemaOf(resource: ResourceDescriptor): SchemaDescriptor | undefined {
  return typeof resource.schema === 'object' ? resource.schema : undefined;
}

export interface FieldChange {
  field: string;
  /** The field's properties that differ, as they were and as they are. */
  from: Record<string, unknown>;
  to: Record<string, unknown>;
}

export interface KeyChange {
  property: 'primaryKey' | 'foreignKeys' | 'uniqueKeys' | 'missingValues';
  from: unknown;
  to: unknown;
}

export interface SchemaDiff {
  added: string[];
  removed: string[];
  changed: FieldChange[];
  keys: KeyChange[];
}

const KEY_PROPERTIES = ['primaryKey', 'foreignKeys', 'uniqueKeys', 'missingValues'] as const;

/** JSON text with object keys in order, so that two equal values are equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : inner,
  );
}

/** A field's properties but its name, with the type's default said. */
function described(field: FieldDescriptor): Record<string, unknown> {
  const { name: _name, ...rest } = field as FieldDescriptor & Record<string, unknown>;
  return { type: 'string', ...rest };
}

function propertyChanges(a: FieldDescriptor, b: FieldDescriptor): FieldChange | undefined {
  const before = described(a);
  const after = described(b);
  const from: Record<string, unknown> = {};
  const to: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (canonical(before[key]) !== canonical(after[key])) {
      from[key] = before[key] ?? null;
      to[key] = after[key] ?? null;
    }
  return Object.keys(from).length > 0 ? { field: b.name, from, to } : undefined;
}

/**
 * Fields added, removed, renamed (one removed and one added at the same position, with the
 * same type: a change of `name`) and changed (type, format, constraints…), and the keys.
 */
export function diffSchemas(
  a: SchemaDescriptor | undefined,
  b: SchemaDescriptor | undefined,
): {
  diff: SchemaDiff;
  /** Each field of b by the name it has in a, for the fields both have. */
  renamed: Map<string, string>;
} {
  const fieldsA = a?.fields ?? [];
  const fieldsB = b?.fields ?? [];
  const namesA = new Set(fieldsA.map((field) => field.name));
  const namesB = new Set(fieldsB.map((field) => field.name));
  const renamed = new Map<string, string>();
  const changed: FieldChange[] = [];
  let removed = fieldsA.filter((field) => !namesB.has(field.name));
  let added = fieldsB.filter((field) => !namesA.has(field.name));
  for (const field of [...removed]) {
    const at = fieldsA.indexOf(field);
    const partner = fieldsB[at];
    if (
      partner &&
      added.includes(partner) &&
      (partner.type ?? 'string') === (field.type ?? 'string')
    ) {
      renamed.set(field.name, partner.name);
      removed = removed.filter((each) => each !== field);
      added = added.filter((each) => each !== partner);
      changed.push({ field: partner.name, from: { name: field.name }, to: { name: partner.name } });
    }
  }
  for (const field of fieldsA) {
    const other = fieldsB.find((each) => each.name === (renamed.get(field.name) ?? field.name));
    if (!other) continue;
    if (!renamed.has(field.name)) renamed.set(field.name, field.name);
    const change = propertyChanges(field, other);
    if (change) changed.push(change);
  }
  const keys: KeyChange[] = [];
  for (const property of KEY_PROPERTIES) {
    const before = (a as Record<string, unknown> | undefined)?.[property];
    const after = (b as Record<string, unknown> | undefined)?.[property];
    if (canonical(before) !== canonical(after))
      keys.push({ property, from: before ?? null, to: after ?? null });
  }
  return {
    diff: {
      added: added.map((field) => field.name),
      removed: removed.map((field) => field.name),
      changed,
      keys,
    },
    renamed,
  };
}
