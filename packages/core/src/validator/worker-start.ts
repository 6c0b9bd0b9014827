/**
 * The validation worker as the build starts it (dist/bundle/worker.js, worker-url.ts): the
 * worker bundle (worker.ts) under a code cache (code-cache.ts) per kind of worker, written when
 * its first work is done. Core's own entry, so that the hub's validation needs only core's
 * build; the CLI carries a copy of both files (scripts/bundle.ts).
 */
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { loadBundle } from '../code-cache.js';
import { isRangeWorker } from './table/ranges.js';

loadBundle(
  join(import.meta.dirname, 'worker.cjs'),
  isRangeWorker(workerData) ? 'range' : 'package',
  // The worker's entry, as start.ts is the CLI's: where the cache folder is read from the
  // environment (the worker thread's copy of its parent's).
  // eslint-disable-next-line no-restricted-properties
  process.env,
);
