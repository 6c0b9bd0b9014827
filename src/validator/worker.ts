/**
 * The validation worker's script: a package (isolated.ts), or the second byte range of a
 * large table (table/ranges.ts), which loads only what a range needs.
 */
import { workerData } from 'node:worker_threads';
import type { IsolatedRequest } from './isolated.js';
import { isRangeWorker } from './table/ranges.js';

// No top-level await: the build bundles this worker into a script (scripts/bundle.ts).
const request: unknown = workerData;
if (isRangeWorker(request))
  void import('./table/range-worker.js').then((range) => range.awaitRange(request));
else
  void import('./package-worker.js').then((worker) =>
    worker.runPackage(request as IsolatedRequest),
  );
