/**
 * The hub's index (`@data/hub`, as the built package gives it) loads the server only when a
 * hub starts: the maintenance commands (`data serve gc`, `backup`, `migrate-storage`) import
 * the same index and stay light. What a process loads is read from Node.js's own module
 * hooks, which see every import and require.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const INDEX = join(ROOT, 'packages/hub/dist/index.js');

const work = mkdtempSync(join(tmpdir(), 'data-hub-index-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every module a process importing `entry` resolved (its address), once it exits. */
function modulesLoaded(entry: string): string[] {
  const list = join(work, 'modules.txt');
  const hook = join(work, 'hook.mjs');
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const loaded = [];
registerHooks({
  load(url, context, next) {
    loaded.push(url);
    return next(url, context);
  },
});
process.on('exit', () => writeFileSync(${JSON.stringify(list)}, loaded.join('\\n')));
`,
  );
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(hook).href,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(pathToFileURL(entry).href)});`,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return readFileSync(list, 'utf8').split('\n');
}

describe("the hub's index", () => {
  it('loads neither the server, busboy nor prom-client', () => {
    if (!existsSync(INDEX)) throw new Error(`${INDEX} is missing: run npm run build first`);
    const loaded = modulesLoaded(INDEX);
    const dist = pathToFileURL(join(ROOT, 'packages/hub/dist')).href;
    // The hooks saw the index and what it imports (a maintenance command's module among them).
    expect(loaded).toContain(`${dist}/index.js`);
    expect(loaded).toContain(`${dist}/services/gc.js`);
    expect(loaded).toContain(`${dist}/start.js`);
    expect(loaded).not.toContain(`${dist}/server.js`);
    expect(loaded.filter((url) => /\/node_modules\/(busboy|prom-client)\//.test(url))).toEqual([]);
  });
});
