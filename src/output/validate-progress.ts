import type { ValidateEvent } from '../validator/index.js';
import { Meter } from './units.js';
import { visibleDeep } from '../text/visible.js';

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
    else if (event.type === 'ranges')
      debug?.(
        event.joined
          ? `${event.name}: validated as two byte ranges on two workers`
          : `${event.name}: validated in one pass: ${event.reason}`,
      );
  };
}
