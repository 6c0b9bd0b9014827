/**
 * The old DataHub client, which nobody here wrote: npm datahub-cli@0.6.3, installed for the
 * tests that use it (its git dependency on datapackage-js replaced by datapackage@1.1.10
 * through npm overrides).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INSTALL = join(tmpdir(), 'data-compat-datahub-cli-0.6.3');
const CLIENT = join(INSTALL, 'node_modules/datahub-cli/bin/data.js');

export function installDatahubCli(): void {
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

/** `data push <dir> --published` of the old client, signed in as the token's user. */
export async function datahubPush(
  dir: string,
  hub: { url: string; jwt: string; username: string },
): Promise<{ code: number | null; out: string; userid: string }> {
  const check = (await (
    await fetch(`${hub.url}/auth/check`, { headers: { 'Auth-Token': hub.jwt } })
  ).json()) as { profile: { id: string } };
  const userid = check.profile.id;
  const home = mkdtempSync(join(tmpdir(), 'datahub-home-'));
  const child = spawn(process.execPath, [CLIENT, 'push', dir, '--published'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      DATAHUB_JSON: join(home, 'config.json'),
      datahub: 'dev',
      token: hub.jwt,
      id: userid,
      username: hub.username,
      api: hub.url,
      domain: hub.url,
    },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, userid })));
}
