import { visibleDeep, type Palette, type TokenRecord } from '@data/core';
import { alignedTable } from './info.js';

/** A time as the lists show it: to the minute, in UTC. */
function minute(iso: string | null): string {
  return iso === null ? 'never' : `${iso.slice(0, 16).replace('T', ' ')}Z`;
}

function datasets(record: TokenRecord): string {
  return record.datasets.length === 0 ? 'any' : record.datasets.join(',');
}

/** What `data token create` says on stderr beside the token: what it may do, until when. */
export function tokenNote(made: TokenRecord): string {
  const record = visibleDeep(made);
  const where = record.datasets.length === 0 ? '' : ` on ${record.datasets.join(', ')}`;
  return `made the token ${JSON.stringify(record.name)} (${record.scope}${where}), which expires ${minute(record.expires)}; it is shown this once: keep it as a secret\n`;
}

/** The user's tokens: an aligned table on a terminal, tab-separated lines in a pipe. */
export function renderTokens(listed: TokenRecord[], tty: boolean, colors: Palette): string {
  const records = visibleDeep(listed);
  const rows = records.map((record) => [
    record.name,
    record.scope,
    datasets(record),
    minute(record.created),
    minute(record.last_used),
    minute(record.expires),
  ]);
  if (!tty) return rows.map((row) => row.join('\t')).join('\n') + (rows.length > 0 ? '\n' : '');
  if (rows.length === 0)
    return 'No tokens. Make one with `data token create NAME --scope read|publish|admin`.\n';
  const headings = ['name', 'scope', 'datasets', 'created', 'last used', 'expires'];
  return `${alignedTable([headings, ...rows], colors, '').join('\n')}\n`;
}
