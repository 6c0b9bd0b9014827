import type { DiffEvent } from '@data/core';
import { grouped, noun } from '@data/core';
import { visibleDeep } from '@data/core';
import { Meter, percent } from './units.js';

/**
 * The spinner's text while comparing: the table and its place among them, then the share
 * of its diff done, the rows read and their rate, and the time left, which counts matching
 * the parts after reading as well.
 */
export function diffProgress(
  heading: string,
  update: (text: string) => void,
): (event: DiffEvent) => void {
  let table = heading;
  // Started at a table's first rows: reading them waits on its schema and a worker's start.
  let meter: Meter | undefined;
  return (received) => {
    // Table names come from the descriptors.
    const event = visibleDeep(received);
    if (event.type === 'table') {
      table = `${heading}: ${event.name} (${String(event.index + 1)}/${String(event.total)})`;
      meter = undefined;
      update(table);
      return;
    }
    meter ??= new Meter();
    const parts = [table];
    if (event.share !== undefined) parts.push(percent(event.share, 1));
    parts.push(`${grouped(event.rows)} ${noun(event.rows, 'row')} read`);
    const rate = meter.rate(event.rows);
    if (event.phase === 'matching') parts.push('matching');
    else if (rate !== undefined) {
      const perSecond = Math.round(rate);
      parts.push(`${grouped(perSecond)} ${noun(perSecond, 'row')}/s`);
    }
    const left = event.share === undefined ? undefined : meter.left(event.share, 1);
    if (left !== undefined) parts.push(left);
    update(parts.join(' · '));
  };
}
