/** Validates the second byte range of a table in a worker thread: see ranges.ts. */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { dumpBuffers } from './keys-check.js';
import { validateRange } from './range-validate.js';
import type { RangeMessage, RangeRequest, RangeStop, RangeWorkerData } from './ranges.js';
import { saveCodeCache } from '../../runtime.js';

/** Between two reports of the bytes a range has read. */
const RANGE_PROGRESS_BYTES = 4 * 1024 * 1024;

/**
 * Once its code is loaded, the worker waits for the range to validate, on the port it was
 * given (started by the caller of the validation) or from its parent; told to stop, it ends.
 */
export function awaitRange(data: RangeWorkerData): void {
  const port = data.port ?? parentPort;
  if (!port) return;
  let stopped = false;
  port.on('message', (message: RangeRequest | RangeStop) => {
    if (!('type' in message)) void runRange(message, port, () => stopped);
    else {
      // The read stops at its next record, and with the port closed the worker ends.
      stopped = true;
      port.close();
    }
  });
}

async function runRange(
  request: RangeRequest,
  port: MessagePort,
  stopped: () => boolean,
): Promise<void> {
  const post = (message: RangeMessage): void => port.postMessage(message);
  let reported = 0;
  const result = await validateRange(
    request,
    (read) => {
      if (read - reported < RANGE_PROGRESS_BYTES) return;
      reported = read;
      post({ type: 'bytes', read });
    },
    stopped,
  );
  if (stopped()) return;
  saveCodeCache();
  const buffers = result.ok ? result.keys.flatMap(dumpBuffers) : [];
  port.postMessage({ type: 'range', result } satisfies RangeMessage, buffers);
}
