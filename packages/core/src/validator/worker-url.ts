import { UsageError } from '../errors.js';
import { embedded, singleExecutable } from '../runtime.js';

/**
 * Defined by the tests (vitest.config.ts): the address of the worker that their global setup
 * (test/helpers/from-sources.ts) bundled from the sources of the run.
 */
declare const DATA_SOURCE_WORKER: string | undefined;

/**
 * The validation worker's script: the build's (dist/bundle/worker.js, which runs the worker
 * bundle under its code cache) from the CLI's bundles, core's compiled modules or a worker
 * itself; from the TypeScript sources (the tests), the one bundled from them for the run.
 * From the sources outside the tests there is none: a UsageError says to build.
 */
export function workerUrl(): URL {
  // The single executable carries the worker inside it; a data: URL runs it as a module.
  if (singleExecutable())
    return new URL(
      `data:text/javascript;base64,${Buffer.from(embedded('worker.mjs')).toString('base64')}`,
    );
  if (import.meta.url.endsWith('.ts')) {
    // Never a build's, which may be of other sources than these.
    if (typeof DATA_SOURCE_WORKER !== 'string')
      throw new UsageError(
        'core runs from its TypeScript sources, which hold no validation worker: build the ' +
          'packages (npm run build) and run the build, or run the tests, whose setup bundles one',
      );
    return new URL(DATA_SOURCE_WORKER);
  }
  // From dist/validator/ and from dist/bundle/ alike, ../bundle/ is dist/bundle/.
  return new URL('../bundle/worker.js', import.meta.url);
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
