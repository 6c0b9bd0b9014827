import type { ResourceDescriptor } from '../validator/descriptor/types.js';
import { readRows } from '../validator/rows.js';
import type { DiffSide } from './side.js';
import { canonical } from './schema.js';

export interface RowCounts {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** The fields rows are matched by, or null when by the whole row. */
  key: string[] | null;
}

export interface CellChange {
  from: unknown;
  to: unknown;
}

export interface RowSamples {
  added: Record<string, unknown>[];
  removed: Record<string, unknown>[];
  changed: { key: Record<string, unknown>; cells: Record<string, CellChange> }[];
}

export interface RowsDiff {
  rows: RowCounts;
  samples: RowSamples;
  /** Keys found more than once on a side: the later rows are left out of the diff. */
  duplicates: { a: number; b: number };
}

/** What the rows are compared on: fields both sides have, by their name in each. */
export interface RowPlan {
  /** Pairs of field names, a's and b's, in b's order. */
  columns: [string, string][];
  /** The key's fields by their name in b, or undefined to match whole rows. */
  key: string[] | undefined;
  limit: number;
  signal?: AbortSignal | undefined;
}

/**
 * Reads one side's table, each row as the comparable values of the fields asked for, in
 * that order (null for a field the table does not have).
 */
async function eachRow(
  side: DiffSide,
  resource: ResourceDescriptor,
  wanted: readonly string[],
  signal: AbortSignal | undefined,
  onRow: (values: unknown[]) => void,
): Promise<void> {
  const fieldNames =
    typeof resource.schema === 'object'
      ? resource.schema.fields.map((field) => field.name)
      : undefined;
  let positions: number[] = [];
  await readRows(
    resource,
    side.base,
    { fetch: side.fetch, signal, typed: 'comparable' },
    {
      labels: (labels) => {
        const names = fieldNames ?? labels;
        positions = wanted.map((name) => names.indexOf(name));
      },
      row: (values) => onRow(positions.map((at) => (at < 0 ? null : (values[at] ?? null)))),
      open: true,
    },
  );
}

/** A row's values as text to compare: JSON, key order made canonical only where objects are. */
function rowText(values: readonly unknown[]): string {
  for (const value of values)
    if (typeof value === 'object' && value !== null) return canonical(values);
  return JSON.stringify(values);
}

/**
 * The rows of two versions of a table, matched by their key (or whole), as counts and the
 * first `limit` rows of each kind. Side a is held (by key, its row as canonical JSON), then
 * side b streams past it.
 */
export async function diffRows(
  a: { side: DiffSide; resource: ResourceDescriptor },
  b: { side: DiffSide; resource: ResourceDescriptor },
  plan: RowPlan,
): Promise<RowsDiff> {
  const counts: RowCounts = {
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    key: plan.key ?? null,
  };
  const samples: RowSamples = { added: [], removed: [], changed: [] };
  const duplicates = { a: 0, b: 0 };
  const columnsA = plan.columns.map(([inA]) => inA);
  const columnsB = plan.columns.map(([, inB]) => inB);
  const keyAt = plan.key?.map((name) => columnsB.indexOf(name));
  // One key field: its value itself keys the map (1 and "1" stay apart), not its JSON.
  const single = keyAt?.length === 1 ? (keyAt[0] ?? 0) : undefined;
  const keyOf = (values: readonly unknown[], text: string): unknown => {
    if (!keyAt) return text;
    if (single !== undefined) {
      const value = values[single] ?? null;
      if (typeof value !== 'object' || value === null) return value;
    }
    return rowText(keyAt.map((index) => values[index] ?? null));
  };
  const asObject = (values: readonly unknown[]) =>
    Object.fromEntries(columnsB.map((name, index) => [name, values[index] ?? null]));

  // Side a, by key: the row's values, and how many of its rows b has not matched yet (one
  // per key; as many as the row repeats when rows are matched whole).
  const held = new Map<unknown, { values: string; left: number }>();
  await eachRow(a.side, a.resource, columnsA, plan.signal, (values) => {
    const text = rowText(values);
    const key = keyOf(values, text);
    const found = held.get(key);
    if (found && keyAt) duplicates.a++;
    else if (found) found.left++;
    else held.set(key, { values: text, left: 1 });
  });
  const addedKeys = new Set<unknown>();
  await eachRow(b.side, b.resource, columnsB, plan.signal, (values) => {
    const text = rowText(values);
    const key = keyOf(values, text);
    const found = held.get(key);
    if (found && found.left > 0) {
      found.left--;
      if (found.values === text) counts.unchanged++;
      else changedRow(found.values, values);
      return;
    }
    if (keyAt && (found || addedKeys.has(key))) {
      duplicates.b++;
      return;
    }
    if (keyAt) addedKeys.add(key);
    counts.added++;
    if (samples.added.length < plan.limit) samples.added.push(asObject(values));
  });
  function changedRow(before: string, values: readonly unknown[]): void {
    counts.changed++;
    if (!keyAt || samples.changed.length >= plan.limit) return;
    const old = JSON.parse(before) as unknown[];
    const cells: Record<string, CellChange> = {};
    for (const [index, name] of columnsB.entries())
      if (canonical(old[index] ?? null) !== canonical(values[index] ?? null))
        cells[name] = { from: old[index] ?? null, to: values[index] ?? null };
    const keyValues = Object.fromEntries(
      keyAt.map((index) => [columnsB[index] ?? '', values[index] ?? null]),
    );
    samples.changed.push({ key: keyValues, cells });
  }
  for (const { values, left } of held.values()) {
    if (left === 0) continue;
    counts.removed += left;
    if (samples.removed.length < plan.limit)
      samples.removed.push(asObject(JSON.parse(values) as unknown[]));
  }
  return { rows: counts, samples, duplicates };
}
