import type { RevisionEntry, SearchResult } from '../client/api.js';
import type { Palette } from '@data/core';
import { alignedTable } from './info.js';
import { visibleDeep } from '@data/core';
import { asChangeSummary, summaryText } from '@data/core';

/** Datasets found: an aligned table on a terminal, tab-separated lines in a pipe. */
export function renderDatasets(
  found: SearchResult[],
  total: number,
  tty: boolean,
  colors: Palette,
): string {
  const results = visibleDeep(found);
  const rows = results.map((result) => [
    `${result.datahub.owner}/${result.name}`,
    result.title ?? '',
    result.datahub.findability === 'published' ? '' : result.datahub.findability,
  ]);
  if (!tty) return rows.map((row) => row.join('\t')).join('\n') + (rows.length > 0 ? '\n' : '');
  if (rows.length === 0) return 'No dataset found.\n';
  const more =
    total > results.length
      ? `\n${colors.dim(`${String(results.length)} of ${String(total)} shown (--size for more)`)}`
      : '';
  return `${alignedTable([['dataset', 'title', 'findability'], ...rows], colors, '').join('\n')}${more}\n`;
}

/** A revision's changes as `data history` shows them: "since 2: +120 rows, −4, 17 changed". */
function changesText(changes: unknown): string {
  const summary = asChangeSummary(changes);
  if (!summary) return '';
  const text = summaryText(summary);
  return summary.since === null ? text : `since ${String(summary.since)}: ${text}`;
}

/** A dataset's revisions, newest first. */
export function renderRevisions(listed: RevisionEntry[], tty: boolean, colors: Palette): string {
  const revisions = visibleDeep(listed);
  const rows = revisions.map((entry) => [
    String(entry.revision),
    entry.state.toLowerCase(),
    entry.findability ?? '',
    entry.created.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    entry.published ? 'yes' : '',
    changesText(entry.changes),
  ]);
  if (!tty) return rows.map((row) => row.join('\t')).join('\n') + (rows.length > 0 ? '\n' : '');
  const headings = ['revision', 'state', 'findability', 'created', 'published', 'changes'];
  return `${alignedTable([headings, ...rows], colors, '').join('\n')}\n`;
}
