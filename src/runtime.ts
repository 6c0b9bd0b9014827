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
