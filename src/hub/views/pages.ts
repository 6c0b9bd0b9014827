import type { Report } from '../../validator/index.js';
import { escape, page } from './layout.js';

export interface DatasetCard {
  owner: string;
  name: string;
  title: string | null;
  description: string | null;
}

export function homePage(
  cards: DatasetCard[],
  query: string,
  total: number,
  viewer: string | undefined,
): string {
  const heading = query
    ? `${String(total)} dataset${total === 1 ? '' : 's'} matching “${escape(query)}”`
    : 'Datasets';
  const list =
    cards.length === 0
      ? `<div class="card"><p class="muted">${query ? 'Nothing matches this search.' : 'No dataset is published yet. Publish one with <code>data publish</code>.'}</p></div>`
      : cards
          .map(
            (
              card,
            ) => `<div class="card"><h3><a href="/${escape(card.owner)}/${escape(card.name)}">${escape(card.title ?? card.name)}</a></h3>
<div class="muted">${escape(card.owner)}/${escape(card.name)}</div>${card.description ? `<p>${escape(firstLine(card.description))}</p>` : ''}</div>`,
          )
          .join('\n');
  return page(
    query ? `Search: ${query}` : 'data hub',
    `<h1>${heading}</h1><p class="muted">Open data packages, validated on publication.</p>${list}`,
    query,
    viewer,
  );
}

function firstLine(text: string): string {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? '';
  return line.length > 240 ? `${line.slice(0, 237)}…` : line;
}

export interface ResourceRow {
  index: number;
  name: string;
  format: string;
  bytes: number | undefined;
  fileName: string;
  preview: { labels: string[]; rows: string[][] } | undefined;
}

export interface DatasetView {
  owner: string;
  name: string;
  title: string;
  description: string | null;
  readme: string | null;
  revision: number | undefined;
  state: string;
  /** Shown when not published: only the owner sees such a page. */
  findability: string;
  resources: ResourceRow[];
  report: Report | undefined;
  failure: string[];
  viewer: string | undefined;
}

function size(bytes: number | undefined): string {
  if (bytes === undefined) return '—';
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? String(value) : value.toFixed(1)} ${units[unit] ?? 'B'}`;
}

function badge(state: string): string {
  const kind = state === 'SUCCEEDED' ? 'ok' : state === 'FAILED' ? 'bad' : 'wait';
  const label =
    state === 'SUCCEEDED' ? 'valid' : state === 'FAILED' ? 'invalid' : state.toLowerCase();
  return `<span class="badge ${kind}">${label}</span>`;
}

function previewTable(row: ResourceRow): string {
  if (!row.preview) return '';
  const head = row.preview.labels.map((label) => `<th>${escape(label)}</th>`).join('');
  const body = row.preview.rows
    .map((cells) => `<tr>${cells.map((cell) => `<td>${escape(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<h3>${escape(row.name)}</h3><div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

function reportSection(view: DatasetView): string {
  const report = view.report;
  if (!report) return '';
  if (report.valid)
    return `<p>${badge('SUCCEEDED')} Every resource passed validation (${String(report.tasks.length)} checked).</p>`;
  const errors = [
    ...report.errors.map((error) => ({ resource: '', error })),
    ...report.tasks.flatMap((task) => task.errors.map((error) => ({ resource: task.name, error }))),
  ];
  const rows = errors
    .slice(0, 100)
    .map(
      ({ resource, error }) =>
        `<tr><td>${escape(resource)}</td><td>${escape(error.rowNumber ?? '')}</td><td>${escape(error.fieldName ?? '')}</td><td><code>${escape(error.type)}</code></td><td>${escape(error.message)}</td></tr>`,
    )
    .join('\n');
  return `<p>${badge('FAILED')} ${String(report.stats.errors)} error(s).</p><div class="scroll"><table><thead><tr><th>Resource</th><th>Row</th><th>Field</th><th>Type</th><th>Message</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function datasetPage(view: DatasetView): string {
  const base = `/${escape(view.owner)}/${escape(view.name)}`;
  const resources = view.resources
    .map(
      (
        row,
      ) => `<tr><td>${escape(row.name)}</td><td>${escape(row.format)}</td><td>${size(row.bytes)}</td>
<td><a href="${base}/r/${encodeURIComponent(row.fileName)}">${escape(row.fileName)}</a> · <a href="${base}/r/${String(row.index)}.${escape(row.format)}">${String(row.index)}.${escape(row.format)}</a></td></tr>`,
    )
    .join('\n');
  const failure =
    view.failure.length > 0
      ? `<div class="card"><strong>The latest publication failed.</strong><ul>${view.failure.map((line) => `<li>${escape(line)}</li>`).join('')}</ul></div>`
      : '';
  return page(
    view.title,
    `<h1>${escape(view.title)}</h1>
<p class="muted">${escape(view.owner)}/${escape(view.name)}${view.revision !== undefined ? ` · revision ${String(view.revision)}` : ''} · ${badge(view.state)}${view.findability === 'published' ? '' : ` <span class="badge wait">${escape(view.findability)}</span>`}</p>
${view.description ? `<p>${escape(view.description)}</p>` : ''}
${failure}
<p><code>data get ${escape(view.owner)}/${escape(view.name)}</code> · <a href="${base}/datapackage.json">datapackage.json</a></p>
<h2>Resources</h2>
<div class="scroll"><table><thead><tr><th>Name</th><th>Format</th><th>Size</th><th>Download</th></tr></thead><tbody>${resources}</tbody></table></div>
${view.readme ? `<h2>README</h2><div class="readme"><pre>${escape(view.readme)}</pre></div>` : ''}
${view.resources.some((row) => row.preview) ? '<h2>Preview</h2>' : ''}
${view.resources.map(previewTable).join('\n')}
<h2>Validation</h2>
${reportSection(view)}`,
    '',
    view.viewer,
  );
}

export function notFoundPage(): string {
  return page(
    'Not found',
    '<h1>Not found</h1><p class="muted">There is no such page, or it is private.</p>',
  );
}
