/**
 * Run by `npm run build` first: each package's dist/ goes, so that a module moved or removed
 * in the sources leaves no compiled copy behind for a test, a script or a packed package to
 * load by its old path.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

for (const name of ['core', 'hub', 'cli'])
  rmSync(join(import.meta.dirname, '..', 'packages', name, 'dist'), {
    recursive: true,
    force: true,
  });
