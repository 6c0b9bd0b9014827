import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates a folder and its missing parents, one at a time. Node's `mkdir` with `recursive`
 * never returns on some file systems (under /proc it loops at full CPU, deaf to signals):
 * creating each level without it gives every failure back as an error.
 */
export function makeDirectorySync(path: string, mode?: number): void {
  const missing: string[] = [];
  let current = resolve(path);
  while (!statSync(current, { throwIfNoEntry: false })) {
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, mode === undefined ? {} : { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (!statSync(resolve(path)).isDirectory())
    throw Object.assign(new Error(`${path} is not a folder`), { code: 'ENOTDIR' });
}

/**
 * The same for async callers. The few stats and mkdirs it makes take microseconds, so it
 * runs them synchronously rather than keep a second copy of the walk.
 */
export function makeDirectory(path: string): Promise<void> {
  return Promise.resolve().then(() => {
    makeDirectorySync(path);
  });
}
