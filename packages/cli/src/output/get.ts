import type { GetEvent } from '../client/get.js';
import { TransferLine } from './transfer-line.js';
import { humanBytes } from './units.js';
import { visibleDeep } from '@data/core';

/** Turns get events into one progress line (terminal) and a line per saved file. */
export function getProgress(
  update: (text: string) => void,
  log: (line: string) => void,
): (event: GetEvent) => void {
  const transfers = new TransferLine('downloading', update);
  return (received) => {
    // Paths come from the hub's descriptor.
    const event = visibleDeep(received);
    switch (event.type) {
      case 'plan':
        transfers.plan(event.files);
        break;
      case 'size':
        transfers.size(event.path, event.bytes);
        break;
      case 'progress':
        transfers.progress(event.path, event.received);
        break;
      case 'saved':
        transfers.finish(event.path);
        log(`saved ${event.path} (${humanBytes(event.bytes)})`);
        break;
      case 'unchanged':
        transfers.finish(event.path);
        log(`${event.path} is up to date`);
        break;
    }
  };
}
