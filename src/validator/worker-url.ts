import { embedded, singleExecutable } from '../runtime.js';

/**
 * The validation worker's script. Run from the TypeScript sources (the tests do), a worker
 * thread cannot load TypeScript, so it runs the built copy, which `npm test` builds first.
 */
export function workerUrl(): URL {
  // The single executable carries the worker inside it; a data: URL runs it as a module.
  if (singleExecutable())
    return new URL(
      `data:text/javascript;base64,${Buffer.from(embedded('worker.mjs')).toString('base64')}`,
    );
  return import.meta.url.endsWith('.ts')
    ? new URL('../../dist/validator/worker.js', import.meta.url)
    : new URL('./worker.js', import.meta.url);
}

/** The young generation of a validation worker, in MB: see isolated.ts. */
export const YOUNG_GENERATION_MB = 32;
