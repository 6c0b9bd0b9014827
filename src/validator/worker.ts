/**
 * The validation worker's script: a package (isolated.ts), or the second byte range of a
 * large table (table/ranges.ts), which loads only what a range needs.
 */
import { workerData } from 'node:worker_threads';
import type { IsolatedRequest } from './isolated.js';
import { isRangeWorker } from './table/ranges.js';

if (isRangeWorker(workerData)) (await import('./table/range-worker.js')).awaitRange(workerData);
else await (await import('./package-worker.js')).runPackage(workerData as IsolatedRequest);
