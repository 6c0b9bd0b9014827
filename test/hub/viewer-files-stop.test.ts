/**
 * The viewer's folder of local Parquet files goes whole when the hub stops, even while a
 * table's file is being asked for: a hub closing mid-request once failed its removal with
 * ENOTEMPTY, a file put there after the folder was emptied.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalFiles } from '../../packages/hub/src/services/viewer/local-files.js';
import type { Published } from '../../packages/hub/src/services/published.js';

const storage = {
  stat: (_key: string): Promise<{ size: number } | undefined> => Promise.resolve({ size: 4 }),
  materialize: (_key: string, path: string): Promise<void> => {
    writeFileSync(path, 'PAR1');
    return Promise.resolve();
  },
};

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the viewer's local files", () => {
  it('puts no file in its folder once stopped, though asked before', async () => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-files-'));
    const folder = join(dir, 'files');
    let answerStat: (size: { size: number }) => void = () => undefined;
    const statAsked = new Promise<void>((asked) => {
      // The first stat waits for the test; any later one answers at once.
      storage.stat = () =>
        new Promise((resolve) => {
          answerStat = resolve;
          storage.stat = () => Promise.resolve({ size: 4 });
          asked();
        });
    });
    const files = new LocalFiles(
      { storage } as never,
      { answer: () => Promise.reject(new Error('no copy')) },
      folder,
      1e9,
    );
    const pkg = {
      descriptor: { resources: [{ name: 't', path: 't.parquet', format: 'parquet' }] },
      prefix: 'packages/o/d/1/',
      files: undefined,
    } as unknown as Published;
    const asked = files.acquire(pkg, 't').then(
      (file) => file,
      (error: unknown) => error,
    );
    await statAsked;
    const stopped = files.stop();
    // The stored file's size arrives after the stop began: nothing may be put there now.
    answerStat({ size: 4 });
    await stopped;
    expect(await asked).toMatchObject({ status: 503, message: 'the hub is stopping' });
    expect(existsSync(folder)).toBe(false);
  });
});
