import type { MigrationEvent, MigrationResult } from '@data/hub';
import { humanBytes } from './units.js';
import { counted } from '@data/core';

/** Turns migration events into one progress line (terminal) and a line per damaged object. */
export function migrationProgress(
  update: (text: string) => void,
  log: (line: string) => void,
): (event: MigrationEvent) => void {
  let files = 0;
  let bytes = 0;
  return (event) => {
    switch (event.type) {
      case 'file':
        files++;
        bytes += event.bytes;
        update(`files: ${String(files)} (${humanBytes(bytes)})`);
        break;
      case 'damaged':
        log(`warning: ${event.key} left behind: ${event.reason}`);
        break;
      case 'rows':
        update(`rows of ${event.table}: ${String(event.rows)}`);
        break;
    }
  };
}

export function migrationSummary(result: MigrationResult, to: string): string {
  const rows = Object.entries(result.rows)
    .map(([table, count]) => `${table} ${String(count)}`)
    .join(', ');
  const lines = [
    `moved to ${to}:`,
    `  files: ${String(result.copied)} copied, ${String(result.present)} there already (${humanBytes(result.bytes)} in all)`,
    `  rows: ${rows}`,
  ];
  if (result.damaged.length > 0)
    lines.push(
      result.damaged.length === 1
        ? '  1 damaged object left behind: its bytes are not the ones its key names'
        : `  ${counted(result.damaged.length, 'damaged object')} left behind: their bytes are not the ones their keys name`,
    );
  return `${lines.join('\n')}\n`;
}
