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

/** Reads one side's table, each row as an object of its fields' comparable values. */
async function eachRow(
  side: DiffSide,
  resource: ResourceDescriptor,
  signal: AbortSignal | undefined,
  onRow: (row: Record<string, unknown>) => void,
): Promise<void> {
  const fieldNames =
    typeof resource.schema === 'object'
      ? resource.schema.fields.map((field) => field.name)
      : undefined;
  let names: string[] = [];
  await readRows(
    resource,
    side.base,
    { fetch: side.fetch, signal, typed: 'comparable' },
    {
      labels: (labels) => {
        names = fieldNames ?? labels;
      },
      row: (values) => {
        const row: Record<string, unknown> = {};
        for (const [index, name] of names.entries()) row[name] = values[index] ?? null;
        onRow(row);
      },
      open: true,
    },
  );
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
  const nameInA = new Map(plan.columns.map(([inA, inB]) => [inB, inA]));
  const keyOf = (row: Record<string, unknown>, names: string[]): string =>
    canonical(names.map((name) => row[name] ?? null));
  const keyInA = plan.key?.map((name) => nameInA.get(name) ?? name);
  const valuesA = (row: Record<string, unknown>) => plan.columns.map(([inA]) => row[inA] ?? null);
  const valuesB = (row: Record<string, unknown>) => plan.columns.map(([, inB]) => row[inB] ?? null);
  const asObject = (values: unknown[]) =>
    Object.fromEntries(plan.columns.map(([, inB], index) => [inB, values[index] ?? null]));

  // Side a, by key: the row's values and whether b has had it yet.
  const held = new Map<string, { values: string; seen: boolean; count: number }>();
  await eachRow(a.side, a.resource, plan.signal, (row) => {
    const values = canonical(valuesA(row));
    const key = keyInA ? keyOf(row, keyInA) : values;
    const found = held.get(key);
    if (found && keyInA) duplicates.a++;
    else if (found) found.count++;
    else held.set(key, { values, seen: false, count: 1 });
  });
  const addedKeys = new Set<string>();
  await eachRow(b.side, b.resource, plan.signal, (row) => {
    const values = valuesB(row);
    const text = canonical(values);
    const key = plan.key ? keyOf(row, plan.key) : text;
    const found = held.get(key);
    if (!found || (!plan.key && found.count === 0)) {
      if (plan.key && addedKeys.has(key)) {
        duplicates.b++;
        return;
      }
      if (plan.key) addedKeys.add(key);
      counts.added++;
      if (samples.added.length < plan.limit) samples.added.push(asObject(values));
      return;
    }
    if (!plan.key) {
      found.count--;
      counts.unchanged++;
      return;
    }
    if (found.seen) {
      duplicates.b++;
      return;
    }
    found.seen = true;
    if (found.values === text) {
      counts.unchanged++;
      return;
    }
    counts.changed++;
    if (samples.changed.length < plan.limit) {
      const before = JSON.parse(found.values) as unknown[];
      const cells: Record<string, CellChange> = {};
      for (const [index, [, name]] of plan.columns.entries())
        if (canonical(before[index] ?? null) !== canonical(values[index] ?? null))
          cells[name] = { from: before[index] ?? null, to: values[index] ?? null };
      const keyValues = Object.fromEntries(plan.key.map((name) => [name, row[name] ?? null]));
      samples.changed.push({ key: keyValues, cells });
    }
  });
  for (const { values, seen, count } of held.values()) {
    const left = plan.key ? (seen ? 0 : 1) : count;
    if (left === 0) continue;
    counts.removed += left;
    if (samples.removed.length < plan.limit)
      samples.removed.push(asObject(JSON.parse(values) as unknown[]));
  }
  return { rows: counts, samples, duplicates };
}
