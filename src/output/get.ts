import type { GetEvent } from '../client/get.js';
import { TransferLine } from './transfer-line.js';

/** Turns get events into one progress line (terminal) and a line per saved file. */
export function getProgress(
  update: (text: string) => void,
  log: (line: string) => void,
): (event: GetEvent) => void {
  const transfers = new TransferLine('downloading', update);
  return (event) => {
    switch (event.type) {
      case 'plan':
        // The overall share needs every size; a descriptor without them gets megabytes only.
        if (event.files.every((file) => file.bytes !== undefined))
          for (const file of event.files) transfers.expect(file.bytes ?? 0);
        break;
      case 'progress':
        transfers.progress(event.path, event.received, event.bytes);
        break;
      case 'saved':
        transfers.finish(event.path);
        log(`saved ${event.path} (${String(event.bytes)} bytes)`);
        break;
    }
  };
}
