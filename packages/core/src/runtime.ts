import { getAsset, isSea } from 'node:sea';

/** Whether this is the single executable (`npm run package`), which has no files beside it. */
export function singleExecutable(): boolean {
  try {
    return isSea();
  } catch {
    return false;
  }
}

/** A text the single executable carries inside it. */
export function embedded(name: string): string {
  return getAsset(name, 'utf8');
}

/** Given by code-cache.ts to the bundle it runs: writes the bundle's code cache. */
declare const DATA_SAVE_CODE_CACHE: (() => void) | undefined;

/**
 * Called where a worker's work is done, before it answers (it is then stopped, and gets no
 * exit of its own): the code it compiled goes into its cache, once, if it had none.
 */
export function saveCodeCache(): void {
  if (typeof DATA_SAVE_CODE_CACHE === 'function') DATA_SAVE_CODE_CACHE();
}
