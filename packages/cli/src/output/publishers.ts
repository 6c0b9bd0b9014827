import { visibleDeep, type Palette, type PublisherRecord } from '@data/core';
import { alignedTable } from './info.js';

/** A time as the lists show it: to the minute, in UTC. */
function minute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')}Z`;
}

/** The claims a publisher requires, as `--claim` takes them: `key=value`, comma-separated. */
function claims(record: PublisherRecord): string {
  return Object.entries(record.claims)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** One publisher, as `data publisher add` and `remove` say it (on stdout: its id first). */
export function publisherLine(shown: PublisherRecord): string {
  const record = visibleDeep(shown);
  return `${record.id}\t${record.dataset}\t${record.issuer}\t${claims(record)}\n`;
}

/** What `data publisher add` says on stderr when the hub kept that publisher already. */
export function alreadyNote(shown: PublisherRecord): string {
  const record = visibleDeep(shown);
  return `note: ${record.dataset} already has this trusted publisher (${record.id}): nothing added\n`;
}

/** What `data publisher remove` says. */
export function removedLine(shown: PublisherRecord): string {
  const record = visibleDeep(shown);
  return `removed the publisher ${record.id} of ${record.dataset} (${record.issuer}, ${claims(record)})\n`;
}

/** A dataset's publishers: an aligned table on a terminal, tab-separated lines in a pipe. */
export function renderPublishers(
  dataset: string,
  listed: PublisherRecord[],
  tty: boolean,
  colors: Palette,
): string {
  const records = visibleDeep(listed);
  const rows = records.map((record) => [
    record.id,
    record.issuer,
    claims(record),
    minute(record.created),
    record.created_by ?? '',
  ]);
  if (!tty) return rows.map((row) => row.join('\t')).join('\n') + (rows.length > 0 ? '\n' : '');
  if (rows.length === 0)
    return `No trusted publishers of ${visibleDeep(dataset)}. Add one with \`data publisher add ${visibleDeep(dataset)} --issuer URL --claim KEY=VALUE\`.\n`;
  const headings = ['id', 'issuer', 'claims', 'added', 'by'];
  return `${alignedTable([headings, ...rows], colors, '').join('\n')}\n`;
}
