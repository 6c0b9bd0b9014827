import type { PackageDiff, ResourceDiff } from './index.js';
import type { Palette } from '../text/palette.js';
import { counted, grouped } from '../text/numbers.js';

/** A value as the diff shows it: JSON, so that `1`, `"1"` and `null` read apart. */
const shown = (value: unknown): string => JSON.stringify(value) ?? 'null';

function rowText(row: Record<string, unknown>): string {
  return Object.entries(row)
    .map(([name, value]) => `${name}=${shown(value)}`)
    .join(' ');
}

function rowSummary(each: ResourceDiff): string {
  const { rows } = each;
  const key = rows.key ? `by ${rows.key.join(', ')}` : 'by whole rows: no primary key';
  return `+${counted(rows.added, 'row')}, −${grouped(rows.removed)}, ${grouped(rows.changed)} changed, ${grouped(rows.unchanged)} unchanged (${key})`;
}

/** The stat line of a resource, as `git diff --stat` gives a file's. */
function statLine(each: ResourceDiff, colors: Palette): string {
  const mark =
    each.status === 'added'
      ? colors.green('+')
      : each.status === 'removed'
        ? colors.red('-')
        : each.status === 'changed'
          ? colors.yellow('~')
          : ' ';
  const renamed = each.renamedFrom ? ` (renamed from ${each.renamedFrom})` : '';
  const detail =
    each.status === 'added' || each.status === 'removed' ? each.status : rowSummary(each);
  return `${mark} ${colors.bold(each.name)}${renamed}: ${detail}`;
}

function schemaLines(each: ResourceDiff, colors: Palette): string[] {
  const lines: string[] = [];
  for (const name of each.schema.added) lines.push(colors.green(`  + field "${name}"`));
  for (const name of each.schema.removed) lines.push(colors.red(`  - field "${name}"`));
  for (const change of each.schema.changed) {
    const parts = Object.keys(change.to).map(
      (property) => `${property} ${shown(change.from[property])} → ${shown(change.to[property])}`,
    );
    lines.push(colors.yellow(`  ~ field "${change.field}": ${parts.join(', ')}`));
  }
  for (const key of each.schema.keys)
    lines.push(colors.yellow(`  ~ ${key.property}: ${shown(key.from)} → ${shown(key.to)}`));
  return lines;
}

/** Where the rows shown start: rows of each kind left out before them, and how to see more. */
export interface RowsPage {
  skipped: number;
  more: string;
}

const FIRST_PAGE: RowsPage = { skipped: 0, more: '--limit N shows more' };

function rowLines(each: ResourceDiff, colors: Palette, page: RowsPage): string[] {
  const lines: string[] = [];
  for (const row of each.samples.added) lines.push(colors.green(`  + ${rowText(row)}`));
  for (const row of each.samples.removed) lines.push(colors.red(`  - ${rowText(row)}`));
  for (const change of each.samples.changed) {
    const cells = Object.entries(change.cells)
      .map(([name, cell]) => `${name}: ${shown(cell.from)} → ${shown(cell.to)}`)
      .join(', ');
    lines.push(colors.yellow(`  ~ ${rowText(change.key)}: ${cells}`));
  }
  const shownRows =
    each.samples.added.length + each.samples.removed.length + each.samples.changed.length;
  const { added, removed, changed } = each.rows;
  const before = [added, removed, changed].reduce(
    (sum, count) => sum + Math.min(count, page.skipped),
    0,
  );
  const after = added + removed + changed - before - shownRows;
  if (after > 0) lines.push(colors.dim(`  … ${grouped(after)} more (${page.more})`));
  if (each.duplicates)
    lines.push(
      colors.red(
        `  ! keys repeated, left out: ${String(each.duplicates.a)} in a, ${String(each.duplicates.b)} in b`,
      ),
    );
  return lines;
}

/** The diff for reading: a summary first, then each changed resource's schema and rows. */
export function diffText(diff: PackageDiff, colors: Palette, page = FIRST_PAGE): string {
  const lines = [`a: ${diff.a}`, `b: ${diff.b}`];
  const changed = diff.resources.filter((each) => each.status !== 'unchanged');
  if (diff.properties.length === 0 && changed.length === 0)
    return `${[...lines, 'no changes'].join('\n')}\n`;
  for (const change of diff.properties)
    lines.push(colors.yellow(`~ ${change.property}: ${shown(change.from)} → ${shown(change.to)}`));
  for (const each of diff.resources) lines.push(statLine(each, colors));
  for (const each of changed) {
    const body = [...schemaLines(each, colors), ...rowLines(each, colors, page)];
    if (body.length === 0) continue;
    lines.push('', colors.bold(each.name), ...body);
  }
  return `${lines.join('\n')}\n`;
}

const csvCell = (text: string): string =>
  /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;

/** One line per changed cell (and per row added or removed), for a spreadsheet or a script. */
export function diffCsv(diff: PackageDiff): string {
  const lines = ['resource,change,key,field,from,to'];
  const line = (parts: string[]) => lines.push(parts.map(csvCell).join(','));
  for (const each of diff.resources) {
    const key = (row: Record<string, unknown>) =>
      each.rows.key ? shown(each.rows.key.map((name) => row[name] ?? null)) : '';
    for (const row of each.samples.added)
      line([each.name, 'added', key(row), '', '', rowText(row)]);
    for (const row of each.samples.removed)
      line([each.name, 'removed', key(row), '', rowText(row), '']);
    for (const change of each.samples.changed)
      for (const [field, cell] of Object.entries(change.cells))
        line([
          each.name,
          'changed',
          shown(Object.values(change.key)),
          field,
          shown(cell.from),
          shown(cell.to),
        ]);
  }
  return `${lines.join('\n')}\n`;
}
