/**
 * `npm run package` makes dist/data, one file that needs no Node.js: run here outside the
 * project, with only the system's Node.js 20 on PATH, which the npm install refuses.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { browserLogin, publish, waitForState } from '../hub/protocol.js';

const ROOT = join(import.meta.dirname, '../..');
const EXECUTABLE = join(ROOT, 'dist', 'data');
const home = mkdtempSync(join(tmpdir(), 'data-single-'));
const env = { PATH: '/usr/bin:/bin', HOME: home, NO_COLOR: '1', DATA_KEYCHAIN: '0' };

function data(args: string[]) {
  const run = spawnSync(EXECUTABLE, args, { cwd: home, env, encoding: 'utf8' });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'scripts/package.ts')], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  cpSync(join(ROOT, 'examples/cities'), join(home, 'cities'), { recursive: true });
}, 120_000);

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the single executable', () => {
  it('runs where the only Node.js is one data itself refuses', () => {
    const system = spawnSync('node', ['--version'], { env, encoding: 'utf8' });
    if (system.status === 0) expect(system.stdout).not.toMatch(/^v2[4-9]\./);
    const version = (
      JSON.parse(
        spawnSync('cat', [join(ROOT, 'packages/cli/package.json')], { encoding: 'utf8' }).stdout,
      ) as {
        version: string;
      }
    ).version;
    expect(data(['--version']).out.trim()).toBe(version);
  });

  it('validates in its worker, describes, and prints tables', () => {
    const valid = data(['validate', 'cities']);
    expect(valid.code).toBe(0);
    expect(valid.out).toContain('✔ valid: 2 resources');
    // Over 8 MB: validated in the worker the executable carries, not in its main thread.
    const rows = Array.from({ length: 800_000 }, (_, index) => `${String(index)},xxxxxxxxxx`);
    writeFileSync(join(home, 'big.csv'), `id,v\n${rows.join('\n')}\n`);
    expect(data(['validate', 'big.csv']).out).toContain('800,000 rows checked');
    // Over 32 MB: two byte ranges, the second in a worker the first one starts.
    const more = Array.from({ length: 2_400_000 }, (_, index) => `${String(index)},xxxxxxxxxx`);
    writeFileSync(join(home, 'bigger.csv'), `id,v\n${more.join('\n')}\n`);
    const split = data(['--debug', 'validate', 'bigger.csv']);
    expect(split.out).toContain('2,400,000 rows checked');
    expect(split.err).toContain('bigger: validated as two byte ranges on two workers');
    expect(data(['cat', 'cities', 'countries', '--format', 'ndjson']).out.split('\n')[0]).toBe(
      '{"code":"FR","name":"France","continent":"Europe"}',
    );
    expect(data(['--json', 'init', 'cities']).code).toBe(0);
  });
});

describe('the hub of the executable', () => {
  it('serves a table page by page, and says sorting is unavailable, having no table engine', async () => {
    const hub = await startServe(['--data-dir', join(home, 'hub')], 0, {
      env,
      cwd: home,
      executable: EXECUTABLE,
    });
    try {
      const jwt = await browserLogin(hub.url);
      const { flowId } = await publish(hub.url, jwt, join(home, 'cities'));
      expect((await waitForState(hub.url, flowId)).state).toBe('SUCCEEDED');
      const first = await fetch(`${hub.url}/ada/world-cities/rows?table=cities&size=2`);
      expect(first.status).toBe(200);
      expect(((await first.json()) as { rows: unknown[] }).rows).toHaveLength(2);
      const sorted = await fetch(`${hub.url}/ada/world-cities/rows?table=cities&sort=city`);
      expect(sorted.status).toBe(501);
      expect(((await sorted.json()) as { error: string }).error).toMatch(/unavailable/);
      const page = await fetch(`${hub.url}/ada/world-cities?table=cities&sort=city`);
      expect(await page.text()).toContain('Sorting, filtering and searching are unavailable');
    } finally {
      await hub.stop();
    }
  });
});
