/**
 * The validation worker as the build starts it (dist/bundle/worker.js): the worker bundle
 * under a code cache (code-cache.ts) per kind of worker, written when its first work is done.
 */
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { loadBundle } from './code-cache.js';
import { isRangeWorker } from '@data/core';

loadBundle(
  join(import.meta.dirname, 'worker.cjs'),
  isRangeWorker(workerData) ? 'range' : 'package',
  process.env,
);
