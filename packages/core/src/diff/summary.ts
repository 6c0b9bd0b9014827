/**
 * A revision's changes summed up in a line, as a hub keeps them for each published revision
 * and `data history` shows them: `+120 rows, −4, 17 changed; field "price" retyped`.
 */
import type { PackageDiff } from './index.js';
import { counted, grouped, noun } from '../text/numbers.js';

export interface ChangeSummary {
  /** The revision compared with: the published one before; null for a dataset's first. */
  since: number | null;
  rows: { added: number; removed: number; changed: number };
  resources: { added: string[]; removed: string[]; renamed: { from: string; to: string }[] };
  fields: { added: string[]; removed: string[]; retyped: string[]; changed: string[] };
  /** Descriptor properties changed (title, version, licences…). */
  properties: string[];
}

export function changeSummary(diff: PackageDiff, since: number): ChangeSummary {
  const summary: ChangeSummary = {
    since,
    rows: { added: 0, removed: 0, changed: 0 },
    resources: { added: [], removed: [], renamed: [] },
    fields: { added: [], removed: [], retyped: [], changed: [] },
    properties: diff.properties.map((change) => change.property),
  };
  for (const each of diff.resources) {
    if (each.status === 'added' || each.status === 'removed') {
      summary.resources[each.status].push(each.name);
      continue;
    }
    if (each.renamedFrom) summary.resources.renamed.push({ from: each.renamedFrom, to: each.name });
    summary.rows.added += each.rows.added;
    summary.rows.removed += each.rows.removed;
    summary.rows.changed += each.rows.changed;
    summary.fields.added.push(...each.schema.added);
    summary.fields.removed.push(...each.schema.removed);
    for (const change of each.schema.changed)
      ('type' in change.to || 'type' in change.from
        ? summary.fields.retyped
        : summary.fields.changed
      ).push(change.field);
  }
  return summary;
}

/** Names quoted, or how many when there are more than a few. */
function named(
  [one, other]: readonly [string, string],
  names: readonly string[],
  what: string,
): string | undefined {
  if (names.length === 0) return undefined;
  if (names.length > 3) return `${counted(names.length, one, other)} ${what}`;
  return `${noun(names.length, one, other)} ${names.map((name) => JSON.stringify(name)).join(', ')} ${what}`;
}

const RESOURCE = ['resource', 'resources'] as const;
const FIELD = ['field', 'fields'] as const;
const PROPERTY = ['property', 'properties'] as const;

/** The summary in one line; "no changes" when there are none. */
export function summaryText(summary: ChangeSummary): string {
  if (summary.since === null) return 'first revision';
  const { rows, resources, fields } = summary;
  const parts: string[] = [];
  if (rows.added + rows.removed + rows.changed > 0)
    parts.push(
      `+${counted(rows.added, 'row')}, −${grouped(rows.removed)}, ${grouped(rows.changed)} changed`,
    );
  const each = [
    named(RESOURCE, resources.added, 'added'),
    named(RESOURCE, resources.removed, 'removed'),
    ...resources.renamed.map(
      ({ from, to }) => `resource ${JSON.stringify(from)} renamed to ${JSON.stringify(to)}`,
    ),
    named(FIELD, fields.added, 'added'),
    named(FIELD, fields.removed, 'removed'),
    named(FIELD, fields.retyped, 'retyped'),
    named(FIELD, fields.changed, 'changed'),
    named(PROPERTY, summary.properties, 'changed'),
  ];
  for (const part of each) if (part) parts.push(part);
  return parts.length > 0 ? parts.join('; ') : 'no changes';
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isNames = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((name) => typeof name === 'string');

/** A summary as a hub sent it, when it has the shape of one (a hub is not trusted to). */
export function asChangeSummary(value: unknown): ChangeSummary | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { since, rows, resources, fields, properties } = value as Record<string, unknown>;
  const all = (record: unknown, keys: string[], check: (inner: unknown) => boolean) =>
    typeof record === 'object' &&
    record !== null &&
    keys.every((key) => check((record as Record<string, unknown>)[key]));
  const renamed = (resources as { renamed?: unknown } | null)?.renamed;
  const valid =
    (since === null || isCount(since)) &&
    all(rows, ['added', 'removed', 'changed'], isCount) &&
    all(resources, ['added', 'removed'], isNames) &&
    Array.isArray(renamed) &&
    renamed.every((pair) => all(pair, ['from', 'to'], (name) => typeof name === 'string')) &&
    all(fields, ['added', 'removed', 'retyped', 'changed'], isNames) &&
    isNames(properties);
  return valid ? (value as ChangeSummary) : undefined;
}
