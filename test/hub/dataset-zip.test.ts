import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeDatasetZip } from '../../src/hub/dataset-zip.js';

const dir = mkdtempSync(join(tmpdir(), 'data-zip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('fails, rather than ending the process, when a file is gone before it is zipped', async () => {
  writeFileSync(join(dir, 'a.csv'), 'id\n1\n');
  const entries = [
    { path: 'data/a.csv', file: join(dir, 'a.csv') },
    // As when the hub stops and clears its work folder while a zip is being written.
    { path: 'data/b.csv', file: join(dir, 'gone.csv') },
  ];
  await expect(writeDatasetZip(join(dir, 'out.zip'), 'ds', '{}', entries)).rejects.toThrow(
    /ENOENT/,
  );
});
