import { embedded, singleExecutable } from '../runtime.js';

/**
 * The validation worker's script: the build's (dist/bundle/worker.js, which runs the worker
 * bundle under its code cache), whether this module runs from the CLI bundle, the compiled
 * modules or the TypeScript sources (the tests, for which `npm test` builds it first).
 */
export function workerUrl(): URL {
  // The single executable carries the worker inside it; a data: URL runs it as a module.
  if (singleExecutable())
    return new URL(
      `data:text/javascript;base64,${Buffer.from(embedded('worker.mjs')).toString('base64')}`,
    );
  // From dist/validator/ and from dist/bundle/ alike, ../bundle/ is dist/bundle/.
  return import.meta.url.endsWith('.ts')
    ? new URL('../../dist/bundle/worker.js', import.meta.url)
    : new URL('../bundle/worker.js', import.meta.url);
}

/** The young generation of a validation worker, in MB: see isolated.ts. */
export const YOUNG_GENERATION_MB = 32;

/**
 * The young generation of a worker writing a Parquet copy, whose row groups leave much
 * short-lived garbage: writing a million rows in groups of 65,536 with a 100 MB heap peaked
 * at 211 MB with a 16 MB semi-space, 163 MB with 4 MB and 145 MB with 1 MB, taking 7.0, 7.6
 * and 8.8 s.
 */
export const PARQUET_YOUNG_GENERATION_MB = 12;
