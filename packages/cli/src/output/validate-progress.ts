import type { ValidateEvent } from '@data/core';
import { Meter } from './units.js';
import { visibleDeep } from '@data/core';
import { describeBytes } from '@data/core';

/** How a table's key memory was spent, for --debug. */
function keysLine(event: Extract<ValidateEvent, { type: 'keys' }>): string {
  const held =
    event.secondRange === undefined
      ? `${describeBytes(event.inMemory)} in memory`
      : `${describeBytes(event.inMemory + event.secondRange)} in memory (first worker ${describeBytes(event.inMemory)}, second ${describeBytes(event.secondRange)})`;
  return `${event.name}: keys took ${held} of a key memory of ${describeBytes(event.budget)}${event.spilled ? '; the rest went to disk' : ', none on disk'}`;
}

/**
 * The spinner's text while validating: the resource, its place among them, and for tables
 * the bytes read of the file's size, percentage, rate and time left.
 */
export function validateProgress(
  update: (text: string) => void,
  debug?: (line: string) => void,
): (event: ValidateEvent) => void {
  let heading = '';
  let meter = new Meter();
  return (received) => {
    // Resource names come from the descriptor.
    const event = visibleDeep(received);
    if (event.type === 'resource') {
      heading = `validating ${event.name} (${String(event.index + 1)}/${String(event.total)})`;
      meter = new Meter();
      update(heading);
      debug?.(`${event.name}: validating`);
    } else if (event.type === 'bytes')
      update(`${heading} · ${meter.describe(event.read, event.total)}`);
    else if (event.type === 'keys') debug?.(keysLine(event));
    else if (event.type === 'ranges')
      debug?.(
        event.joined
          ? `${event.name}: validated as two byte ranges on two workers`
          : `${event.name}: validated in one pass: ${event.reason}`,
      );
  };
}
