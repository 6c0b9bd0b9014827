import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, expect, it } from 'vitest';
import yazl from 'yazl';
import { entryOptions, zipOutput } from '../../packages/hub/src/services/copies/dataset-zip.js';

const dir = mkdtempSync(join(tmpdir(), 'data-zip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('fails, rather than ending the process, when a file is gone before it is zipped', async () => {
  writeFileSync(join(dir, 'a.csv'), 'id\n1\n');
  const zip = new yazl.ZipFile();
  const mtime = new Date();
  zip.addFile(join(dir, 'a.csv'), 'ds/data/a.csv', entryOptions('data/a.csv', mtime));
  // As when the hub stops and clears its work folder while a zip is being written.
  zip.addFile(join(dir, 'gone.csv'), 'ds/data/b.csv', entryOptions('data/b.csv', mtime));
  await expect(pipeline(zipOutput(zip), createWriteStream(join(dir, 'out.zip')))).rejects.toThrow(
    /ENOENT/,
  );
});
