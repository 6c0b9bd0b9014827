/**
 * The diff page's body: what changed from one revision to another, each changed table as a
 * table of its rows added, removed and changed (changed cells marked, old → new), with its
 * schema changes above. Built from what the core's diff computes; every value escaped.
 */
import { counted, grouped, type PackageDiff } from '@data/core';
import { escape } from './escape.js';

type ResourceDiff = PackageDiff['resources'][number];

/** Characters of one cell shown; a longer value is cut, and says so. */
const CELL_CHARACTERS = 200;
/** Columns of one table shown; a wider table says how many are left out. */
const MOST_COLUMNS = 40;

/** The diff tables' look: changed cells marked by more than colour (a sign and a strike). */
export const DIFF_STYLES = `
section.diff-table { margin: 24px 0 32px; }
section.diff-table h2 { margin-bottom: 6px; overflow-wrap: anywhere; }
.diff-rows { max-width: 100%; }
.diff-rows table { width: auto; min-width: 100%; }
.diff-rows td { max-width: 22em; overflow-wrap: break-word; }
.diff-rows th { white-space: nowrap; }
tr.added td { background: #e6f4ea; }
tr.removed td { background: #fce8e6; }
td.change { white-space: nowrap; font-weight: 600; }
td.cell-changed { background: #fef7e0; }
td.cell-changed del { color: var(--bad); }
td.cell-changed ins { color: var(--ok); text-decoration: none; font-weight: 600; }
.none { color: var(--muted); font-style: italic; }
ul.schema-changes { margin: 6px 0 12px; padding-left: 20px; overflow-wrap: anywhere; }
`;

/** A value as a cell shows it: text as itself, an empty cell as such, others as JSON. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '<span class="none">empty</span>';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (text === '') return '<span class="none">empty text</span>';
  return text.length > CELL_CHARACTERS
    ? `${escape(text.slice(0, CELL_CHARACTERS))}… <span class="none">(${grouped(text.length)} characters)</span>`
    : escape(text);
}

const json = (value: unknown): string => JSON.stringify(value) ?? 'none';

function schemaChanges(each: ResourceDiff): string {
  const items: string[] = [];
  for (const name of each.schema.added) items.push(`Field <code>${escape(name)}</code> added`);
  for (const name of each.schema.removed) items.push(`Field <code>${escape(name)}</code> removed`);
  for (const change of each.schema.changed) {
    const parts = Object.keys({ ...change.from, ...change.to }).map(
      (property) =>
        `${escape(property)} <del>${escape(json(change.from[property]))}</del> → <ins>${escape(json(change.to[property]))}</ins>`,
    );
    items.push(`Field <code>${escape(change.field)}</code>: ${parts.join(', ')}`);
  }
  for (const key of each.schema.keys)
    items.push(
      `${escape(key.property)}: <del>${escape(json(key.from))}</del> → <ins>${escape(json(key.to))}</ins>`,
    );
  return items.length > 0
    ? `<h3>Schema changes</h3><ul class="schema-changes">${items.map((item) => `<li>${item}</li>`).join('')}</ul>`
    : '';
}

/** The columns of a table's rows shown: the key first, then each field as rows name them. */
function columnsOf(each: ResourceDiff): string[] {
  const names = new Set<string>(each.rows.key ?? []);
  for (const row of [...each.samples.added, ...each.samples.removed])
    for (const name of Object.keys(row)) names.add(name);
  for (const change of each.samples.changed) {
    for (const name of Object.keys(change.key)) names.add(name);
    for (const name of Object.keys(change.cells)) names.add(name);
  }
  return [...names];
}

/** Where the rows of one page fall among all: rows of each kind skipped before, and a page's. */
export interface RowsWindow {
  skipped: number;
  pageRows: number;
}

function rowsTable(each: ResourceDiff, window: RowsWindow, id: string): string {
  const { added, removed, changed } = each.samples;
  if (added.length + removed.length + changed.length === 0) return '';
  const all = columnsOf(each);
  const columns = all.slice(0, MOST_COLUMNS);
  const head = `<tr><th scope="col">Change</th>${columns.map((name) => `<th scope="col">${escape(name)}</th>`).join('')}</tr>`;
  const plain = (kind: 'added' | 'removed', row: Record<string, unknown>) =>
    `<tr class="${kind}"><td class="change">${kind === 'added' ? '+ Added' : '− Removed'}</td>${columns
      .map((name) => `<td>${name in row ? cell(row[name]) : ''}</td>`)
      .join('')}</tr>`;
  const rows = [
    ...added.map((row) => plain('added', row)),
    ...removed.map((row) => plain('removed', row)),
    ...changed.map(
      (change) =>
        `<tr class="changed"><td class="change">~ Changed</td>${columns
          .map((name) => {
            const moved = change.cells[name];
            if (moved)
              return `<td class="cell-changed"><del><span class="hidden">was </span>${cell(moved.from)}</del> → <ins><span class="hidden">now </span>${cell(moved.to)}</ins></td>`;
            return `<td>${name in change.key ? cell(change.key[name]) : ''}</td>`;
          })
          .join('')}</tr>`,
    ),
  ];
  const first = window.skipped + 1;
  const counts = (
    [
      ['added', added.length, each.rows.added],
      ['removed', removed.length, each.rows.removed],
      ['changed', changed.length, each.rows.changed],
    ] as const
  )
    .filter(([, , total]) => total > 0)
    .map(
      ([kind, shown, total]) =>
        `${shown > 0 ? `${grouped(first)}–${grouped(window.skipped + shown)}` : 'none'} of ${grouped(total)} ${kind}`,
    );
  const wide =
    all.length > columns.length
      ? ` The first ${String(MOST_COLUMNS)} of ${String(all.length)} columns.`
      : '';
  return `<p class="muted" id="${id}-shown">Rows shown: ${counts.join('; ')} (at most ${String(window.pageRows)} of each kind a page).${wide} Unchanged cells of a changed row are left blank but its key.</p>
<div class="scroll diff-rows" role="region" aria-label="Rows of ${escape(each.name)}" tabindex="0"><table aria-describedby="${id}-shown">
<caption class="hidden">Rows added, removed and changed in ${escape(each.name)}</caption>
<thead>${head}</thead><tbody>${rows.join('\n')}</tbody></table></div>`;
}

function rowSummary(each: ResourceDiff): string {
  const { rows } = each;
  const key = rows.key
    ? `rows matched by ${rows.key.map((name) => `<code>${escape(name)}</code>`).join(', ')}`
    : 'rows matched whole: no primary key';
  return `${counted(rows.added, 'row')} added, ${grouped(rows.removed)} removed, ${grouped(rows.changed)} changed, ${grouped(rows.unchanged)} unchanged (${key}).`;
}

function tableSection(each: ResourceDiff, index: number, window: RowsWindow): string {
  const id = `t${String(index)}`;
  const status = {
    added: 'new table',
    removed: 'table removed',
    changed: 'changed',
    unchanged: '',
  }[each.status];
  const renamed = each.renamedFrom ? `, renamed from <code>${escape(each.renamedFrom)}</code>` : '';
  const duplicates = each.duplicates
    ? `<p>Rows whose key repeats were left out: ${grouped(each.duplicates.a)} before, ${grouped(each.duplicates.b)} after.</p>`
    : '';
  const summary = each.status === 'changed' ? `<p>${rowSummary(each)}</p>` : '';
  return `<section class="diff-table" aria-labelledby="${id}-title">
<h2 id="${id}-title">${escape(each.name)} <span class="badge wait">${escape(status)}</span></h2>
${renamed ? `<p>${renamed.slice(2)}</p>` : ''}${summary}${duplicates}${schemaChanges(each)}
${each.status === 'changed' ? rowsTable(each, window, id) : ''}
</section>`;
}

/** The package's own properties that changed (title, licences…), as a small table. */
function propertyChanges(diff: PackageDiff): string {
  if (diff.properties.length === 0) return '';
  const rows = diff.properties.map(
    (change) =>
      `<tr><th scope="row">${escape(change.property)}</th><td><del>${cell(json(change.from))}</del></td><td><ins>${cell(json(change.to))}</ins></td></tr>`,
  );
  return `<h2>Package properties</h2><div class="scroll diff-rows" role="region" aria-label="Package properties changed" tabindex="0"><table><thead><tr><th scope="col">Property</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** The changes of a diff, table by table; `window` says which rows of each kind it holds. */
export function diffBody(diff: PackageDiff, window: RowsWindow): string {
  const changed = diff.resources.filter((each) => each.status !== 'unchanged');
  if (diff.properties.length === 0 && changed.length === 0)
    return '<p>No changes: the two revisions hold the same data.</p>';
  const contents =
    changed.length > 1
      ? `<nav aria-label="Changed tables"><ul>${changed.map((each, index) => `<li><a href="#t${String(index)}-title">${escape(each.name)}</a></li>`).join('')}</ul></nav>`
      : '';
  const unchanged = diff.resources.length - changed.length;
  return [
    `<p>${counted(changed.length, 'table')} changed${unchanged > 0 ? `, ${grouped(unchanged)} unchanged` : ''}.</p>`,
    contents,
    propertyChanges(diff),
    ...changed.map((each, index) => tableSection(each, index, window)),
  ].join('\n');
}
