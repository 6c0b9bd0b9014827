/**
 * The old DataHub client, which nobody here wrote, publishes to our hub unchanged:
 * npm datahub-cli@0.6.3, installed for this test (its git dependency on datapackage-js
 * replaced by datapackage@1.1.10 through npm overrides).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserLogin, EXAMPLES, waitForState, withHub } from '../hub/helpers.js';

const INSTALL = join(tmpdir(), 'data-compat-datahub-cli-0.6.3');
const CLIENT = join(INSTALL, 'node_modules/datahub-cli/bin/data.js');

function install(): void {
  if (existsSync(CLIENT)) return;
  mkdirSync(INSTALL, { recursive: true });
  const manifest = {
    name: 'datahub-cli-compat',
    private: true,
    dependencies: { 'datahub-cli': '0.6.3' },
    overrides: { datapackage: '1.1.10' },
  };
  writeFileSync(join(INSTALL, 'package.json'), JSON.stringify(manifest));
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  const result = spawnSync(
    command,
    [...args, 'install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    { cwd: INSTALL, encoding: 'utf8', timeout: 300_000 },
  );
  if (result.status !== 0 || !existsSync(CLIENT))
    throw new Error(`installing datahub-cli failed: ${result.stderr}`);
}

function push(
  dir: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  const home = mkdtempSync(join(tmpdir(), 'datahub-home-'));
  const child = spawn(process.execPath, [CLIENT, 'push', dir, '--published'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      DATAHUB_JSON: join(home, 'config.json'),
      datahub: 'dev',
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

describe('datahub-cli 0.6.3 against data serve', () => {
  beforeAll(install, 330_000);

  it('pushes an example that reads back byte-identical', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url, 'ada');
      const check = (await (
        await fetch(`${url}/auth/check`, { headers: { 'Auth-Token': jwt } })
      ).json()) as { profile: { id: string } };
      const userid = check.profile.id;
      const { code, out } = await push(join(EXAMPLES, 'cities'), {
        token: jwt,
        id: userid,
        username: 'ada',
        api: url,
        domain: url,
      });
      expect(out).toContain('your data is published');
      expect(code).toBe(0);
      expect((await waitForState(url, `${userid}/world-cities/1`)).state).toBe('SUCCEEDED');
      for (const path of ['data/countries.csv', 'data/cities.csv']) {
        const served = Buffer.from(
          await (
            await fetch(`${url}/ada/world-cities/r/${path.split('/').pop() ?? ''}`)
          ).arrayBuffer(),
        );
        expect(served.equals(readFileSync(join(EXAMPLES, 'cities', path)))).toBe(true);
      }
      const page = await fetch(`${url}/ada/world-cities/v/1`);
      expect(page.status).toBe(200);
    });
  }, 120_000);
});
