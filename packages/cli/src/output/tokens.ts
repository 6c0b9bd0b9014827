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

/** Whether a token is still taken, by its expiry: the hub refuses it from then on. */
function state(record: TokenRecord, now: Date): 'active' | 'expired' {
  const expires = Date.parse(record.expires);
  return Number.isFinite(expires) && expires <= now.getTime() ? 'expired' : 'active';
}

/**
 * The user's tokens: an aligned table under a heading on a terminal (an expired one's state
 * in red), tab-separated lines with no heading in a pipe, as the other lists; the last column
 * says whether each is still taken (`active`) or `expired`.
 */
export function renderTokens(
  listed: TokenRecord[],
  tty: boolean,
  colors: Palette,
  now: Date = new Date(),
): string {
  const records = visibleDeep(listed);
  const rows = records.map((record) => [
    record.name,
    record.scope,
    datasets(record),
    minute(record.created),
    minute(record.last_used),
    minute(record.expires),
    state(record, now),
  ]);
  if (!tty) return rows.map((row) => row.join('\t')).join('\n') + (rows.length > 0 ? '\n' : '');
  if (rows.length === 0)
    return 'No tokens. Make one with `data token create NAME --scope read|publish|admin`.\n';
  const headings = ['name', 'scope', 'datasets', 'created', 'last used', 'expires', 'state'];
  const shown = rows.map((row) =>
    row.map((cell, column) => (column === 6 && cell === 'expired' ? colors.red(cell) : cell)),
  );
  return `${alignedTable([headings, ...shown], colors, '').join('\n')}\n`;
}
