import type { Report, ReportError } from '@data/core';
import { chartSvg, type ChartData, type SimpleView } from './chart.js';
import { count, day, humanBytes } from './format.js';
import { counted } from '@data/core';
import { escape, page } from './layout.js';
import { renderMarkdown } from './markdown.js';
import { queryParams } from '../services/viewer/query-params.js';
import { tableViewer, type TableViewerView } from './table-viewer.js';

export interface FieldRow {
  name: string;
  type: string;
  format: string | undefined;
  description: string | undefined;
  constraints: string;
}

export interface TableSchema {
  fields: FieldRow[];
  primaryKey: string[];
  foreignKeys: { fields: string[]; resource: string; reference: string[] }[];
}

export interface ResourceRow {
  index: number;
  name: string;
  title: string | undefined;
  format: string;
  bytes: number | undefined;
  rows: number | undefined;
  /** The original's file name at /r/, and the derived copies there, by extension. */
  fileName: string;
  copies: string[];
  schema: TableSchema | undefined;
}

/** A revision's changes since the published revision before it, in a line. */
export interface ChangesLine {
  since: number | null;
  text: string;
}

export interface RevisionRow {
  revision: number;
  state: string;
  created: string;
  published: boolean;
  changes: ChangesLine | undefined;
}

export interface DatasetView {
  owner: string;
  name: string;
  title: string;
  description: string | null;
  readme: string | null;
  revision: number | undefined;
  /** The revision the page's address names (`/v/<N>`); undefined on the latest's page. */
  version?: number | undefined;
  state: string;
  findability: string;
  facts: { label: string; html: string }[];
  resources: ResourceRow[];
  zip: string | undefined;
  charts: { view: SimpleView; data: ChartData }[];
  history: RevisionRow[];
  /** The changes of the revision shown, once summed up. */
  changes: ChangesLine | undefined;
  report: Report | undefined;
  failure: string[];
  viewer: string | undefined;
  /** The table shown, one at a time, with a picker of the others. */
  table?: TableViewerView | undefined;
}

function badge(state: string): string {
  const kind = state === 'SUCCEEDED' ? 'ok' : state === 'FAILED' ? 'bad' : 'wait';
  const label =
    state === 'SUCCEEDED' ? 'valid' : state === 'FAILED' ? 'invalid' : state.toLowerCase();
  return `<span class="badge ${kind}">${label}</span>`;
}

function resourcesTable(view: DatasetView, base: string): string {
  const rows = view.resources.map((row) => {
    // `/r/` refuses a name with an empty, `.` or `..` part (`a/../t`): such a table by index.
    const named = /(^|\/)(\.\.?)?(\/|$)/.test(row.name) ? String(row.index) : row.name;
    const links = [
      `<a href="${base}/r/${encodeURIComponent(row.fileName)}">${escape(row.format || 'file')}</a>`,
      ...row.copies.map(
        (extension) =>
          `<a href="${base}/r/${encodeURIComponent(named)}.${escape(extension)}">${escape(extension)}</a>`,
      ),
    ];
    return `<tr><th scope="row">${escape(row.title ?? row.name)}${row.title ? `<div class="muted">${escape(row.name)}</div>` : ''}</th><td>${escape(row.format)}</td><td class="number">${humanBytes(row.bytes)}</td><td class="number">${count(row.rows)}</td><td>${links.join(' · ')}</td></tr>`;
  });
  return `<div class="scroll"><table><caption class="hidden">Files of the dataset</caption><thead><tr><th scope="col">Resource</th><th scope="col">Format</th><th scope="col">Size</th><th scope="col">Rows</th><th scope="col">Download</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></div>`;
}

function schemaSection(row: ResourceRow): string {
  const schema = row.schema;
  if (!schema || schema.fields.length === 0) return '';
  const fields = schema.fields
    .map(
      (field) =>
        `<tr><th scope="row"><code>${escape(field.name)}</code></th><td>${escape(field.type)}${field.format ? ` <span class="muted">(${escape(field.format)})</span>` : ''}</td><td>${escape(field.description ?? '')}</td><td>${escape(field.constraints)}</td></tr>`,
    )
    .join('\n');
  const keys = [
    schema.primaryKey.length > 0
      ? `Primary key: <code>${escape(schema.primaryKey.join(', '))}</code>`
      : '',
    ...schema.foreignKeys.map(
      (key) =>
        `Foreign key: <code>${escape(key.fields.join(', '))}</code> → <code>${escape(key.resource || row.name)}</code> (<code>${escape(key.reference.join(', '))}</code>)`,
    ),
  ].filter(Boolean);
  return `<details class="schema"><summary>Schema of ${escape(row.name)}: ${counted(schema.fields.length, 'field')}</summary>
<div class="scroll"><table><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Description</th><th scope="col">Constraints</th></tr></thead><tbody>${fields}</tbody></table></div>
${keys.map((key) => `<p>${key}</p>`).join('')}</details>`;
}

function groupedErrors(report: Report): string {
  const byResource = new Map<string, Map<string, ReportError[]>>();
  const add = (resource: string, error: ReportError) => {
    const types = byResource.get(resource) ?? new Map<string, ReportError[]>();
    byResource.set(resource, types);
    const list = types.get(error.type) ?? [];
    types.set(error.type, list);
    list.push(error);
  };
  for (const error of report.errors) add('the package', error);
  for (const task of report.tasks) for (const error of task.errors) add(task.name, error);
  return [...byResource]
    .map(([resource, types]) => {
      const items = [...types]
        .map(([type, errors]) => {
          const examples = errors
            .slice(0, 5)
            .map(
              (error) =>
                `<li>${error.rowNumber !== undefined ? `row ${escape(error.rowNumber)}: ` : ''}${escape(error.message)}</li>`,
            )
            .join('');
          const rest =
            errors.length > 5 ? `<li class="muted">and ${count(errors.length - 5)} more</li>` : '';
          return `<li><code>${escape(type)}</code>: ${counted(errors.length, 'error')}<ul>${examples}${rest}</ul></li>`;
        })
        .join('');
      return `<h3>${escape(resource)}</h3><ul class="errors">${items}</ul>`;
    })
    .join('\n');
}

function reportSection(view: DatasetView, base: string): string {
  const report = view.report;
  if (!report) return '';
  const link = `<a href="${base}/validation_report.json">validation_report.json</a>`;
  if (report.valid)
    return `<h2>Validation</h2><p>${badge('SUCCEEDED')} Every resource passed validation (${counted(report.tasks.length, 'resource')} checked) · ${link}</p>`;
  return `<h2>Validation</h2><p>${badge('FAILED')} ${counted(report.stats.errors, 'error')}, grouped by resource and type.</p>${groupedErrors(report)}`;
}

function historySection(view: DatasetView, base: string): string {
  if (view.history.length === 0) return '';
  // Newest first: each published revision's changes are against the one published before.
  const changes = (index: number): string => {
    const entry = view.history[index];
    const before = view.history.slice(index + 1).find((older) => older.state === 'SUCCEEDED');
    if (entry?.state !== 'SUCCEEDED') return '';
    const summed = entry.changes ? escape(entry.changes.text) : '';
    if (!before) return summed;
    const link = `<a href="${base}/diff/${String(before.revision)}..${String(entry.revision)}">since ${String(before.revision)}</a>`;
    return summed ? `${link}: ${summed}` : link;
  };
  const rows = view.history
    .map(
      (entry, index) =>
        `<tr><th scope="row"><a href="${base}/v/${String(entry.revision)}">${String(entry.revision)}</a></th><td>${badge(entry.state)}${entry.published ? ' <span class="badge ok">published</span>' : ''}</td><td>${day(entry.created)}</td><td>${changes(index)}</td></tr>`,
    )
    .join('\n');
  return `<h2>History</h2><div class="scroll"><table><thead><tr><th scope="col">Revision</th><th scope="col">State</th><th scope="col">Date</th><th scope="col">Changes</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** What the revision shown changed, under its title. */
function changesLine(view: DatasetView, base: string): string {
  const { changes, revision } = view;
  if (!changes || changes.since === null || revision === undefined) return '';
  const link = `<a href="${base}/diff/${String(changes.since)}..${String(revision)}">Changes since revision ${String(changes.since)}</a>`;
  return `<p class="changes">${link}: ${escape(changes.text)}</p>`;
}

export function datasetPage(view: DatasetView): string {
  const base = `/${encodeURIComponent(view.owner)}/${encodeURIComponent(view.name)}`;
  // A revision's page links its own files, at addresses that keep its bytes.
  const here = view.version === undefined ? base : `${base}/v/${String(view.version)}`;
  const command = `data get ${view.owner}/${view.name}${view.version === undefined ? '' : `@${String(view.version)}`}`;
  const failure =
    view.failure.length > 0
      ? `<div class="card alert" role="alert"><strong>The latest publication failed.</strong><ul>${view.failure.map((line) => `<li>${escape(line)}</li>`).join('')}</ul></div>`
      : '';
  const facts =
    view.facts.length > 0
      ? `<dl class="facts">${view.facts.map((fact) => `<div><dt>${escape(fact.label)}</dt><dd>${fact.html}</dd></div>`).join('')}</dl>`
      : '';
  const downloads = `<div class="get"><code id="get-command">${escape(command)}</code><button type="button" class="copy" data-copy="${escape(command)}" hidden>Copy</button></div>
<p>${view.zip ? `<a class="button" href="${here}/r/${encodeURIComponent(view.zip)}">Download all (zip)</a> · ` : ''}<a href="${here}/datapackage.json">datapackage.json</a></p>`;
  const table = view.table;
  // The schema of the table shown; of each resource when no table is.
  const schemas = view.resources
    .filter((row) => (table ? row.name === table.query.table : row.schema))
    .map(schemaSection)
    .join('\n');
  return page(
    view.title,
    `<h1>${escape(view.title)}</h1>
<p class="muted"><a href="/${encodeURIComponent(view.owner)}">${escape(view.owner)}</a>/${escape(view.name)}${view.revision !== undefined ? ` · revision ${String(view.revision)}` : ''} · ${badge(view.state)}${view.findability === 'published' ? '' : ` <span class="badge wait">${escape(view.findability)}</span>`}</p>
${view.description ? `<p class="lead">${escape(view.description)}</p>` : ''}
${changesLine(view, base)}${failure}${facts}
${view.resources.length > 0 ? `<h2>Data</h2>${downloads}${resourcesTable(view, here)}` : ''}
${view.charts.length > 0 ? `<h2>Views</h2>${view.charts.map((chart) => chartSvg(chart.view, chart.data)).join('\n')}` : ''}
${table || schemas ? `<h2>Tables</h2>${table ? tableViewer(table, queryParams) : ''}${schemas}` : ''}
${view.readme ? `<h2>README</h2><div class="readme">${renderMarkdown(view.readme)}</div>` : ''}
${reportSection(view, here)}
${historySection(view, base)}`,
    '',
    view.viewer,
  );
}
