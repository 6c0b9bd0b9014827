/** Validates the second byte range of a table in a worker thread: see ranges.ts. */
import { parentPort } from 'node:worker_threads';
import { dumpBuffers } from './keys-check.js';
import { validateRange } from './range-validate.js';
import type { RangeMessage, RangeRequest } from './ranges.js';

const port = parentPort;

/** Between two reports of the bytes a range has read. */
const RANGE_PROGRESS_BYTES = 4 * 1024 * 1024;

/** Once its code is loaded, the worker waits for the range to validate. */
export function awaitRange(): void {
  port?.once('message', (request: RangeRequest) => void runRange(request));
}

async function runRange(request: RangeRequest): Promise<void> {
  const post = (message: RangeMessage): void => port?.postMessage(message);
  let reported = 0;
  const result = await validateRange(request, (read) => {
    if (read - reported < RANGE_PROGRESS_BYTES) return;
    reported = read;
    post({ type: 'bytes', read });
  });
  const buffers = result.ok ? result.keys.flatMap(dumpBuffers) : [];
  port?.postMessage({ type: 'range', result } satisfies RangeMessage, buffers);
}
