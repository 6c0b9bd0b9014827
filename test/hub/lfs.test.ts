import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { browserLogin, publish, tempDir, waitForState, withHub } from './helpers.js';

it('fails a revision whose file is a Git LFS pointer, with the one reason, not a table of its text', async () => {
  const dir = tempDir();
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'gdp.csv'),
      `version https://git-lfs.github.com/spec/v1\noid sha256:${'e'.repeat(64)}\nsize 18210\n`,
    );
    writeFileSync(
      join(dir, 'datapackage.json'),
      JSON.stringify({ name: 'gdp', resources: [{ name: 'gdp', path: 'gdp.csv' }] }),
    );
    await withHub({}, async ({ url }) => {
      const state = await waitForState(
        url,
        (await publish(url, await browserLogin(url), dir)).flowId,
      );
      expect(state.state).toBe('FAILED');
      expect(state.error_log.join('\n')).toContain(
        '"gdp.csv" is a Git LFS pointer, not the data: fetch the data with `git lfs pull`',
      );
      expect(state.error_log.join('\n')).toContain('invalid: 1 error');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
