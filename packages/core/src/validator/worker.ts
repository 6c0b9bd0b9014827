/**
 * The validation worker's script: a package (isolated.ts), or the second byte range of a
 * large table (table/ranges.ts), which loads only what a range needs, or one local side of
 * a table diff (diff/encode-worker.ts).
 */
import { workerData } from 'node:worker_threads';
import type { IsolatedRequest } from './isolated.js';
import { isRangeWorker } from './table/ranges.js';
import { isEncodeWorker } from '../diff/encode-worker.js';

// No top-level await: the build bundles this worker into a script (scripts/bundle.ts).
const request: unknown = workerData;
if (isRangeWorker(request))
  void import('./table/range-worker.js').then((range) => range.awaitRange(request));
else if (isEncodeWorker(request))
  void import('../diff/encode-worker.js').then((diff) => diff.runEncodeWorker(request));
else
  void import('./package-worker.js').then((worker) =>
    worker.runPackage(request as IsolatedRequest),
  );
