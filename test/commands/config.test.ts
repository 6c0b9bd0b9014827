import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

function withConfig() {
  const dir = mkdtempSync(join(tmpdir(), 'data-config-'));
  return async (args: string[]) => ({
    ...(await runCli(args, { env: { DATA_CONFIG_DIR: dir } })),
    dir,
  });
}

describe('data config', () => {
  it('sets, gets, lists and unsets the hub addresses, and the other commands use them', async () => {
    const data = withConfig();
    expect((await data(['config', 'set', 'api', 'https://hub.example.org/'])).code).toBe(0);
    expect((await data(['config', 'get', 'api'])).out).toBe('https://hub.example.org\n');
    const listed = await data(['--json', 'config', 'list']);
    expect(JSON.parse(listed.out)).toMatchObject({ settings: { api: 'https://hub.example.org' } });
    const file = join(listed.dir, 'config.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ api: 'https://hub.example.org' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const site = await data(['config', 'get', 'site']);
    expect(site.code).toBe(1);
    expect(site.out).toBe('');
    expect((await data(['config', 'set', 'api', 'http://127.0.0.1:1'])).code).toBe(0);
    expect((await data(['whoami'])).err).toContain('cannot reach http://127.0.0.1:1');
    expect((await data(['config', 'unset', 'api'])).err).toBe('api removed\n');
    expect((await data(['config', 'get', 'api'])).code).toBe(1);
  });

  it('refuses unknown keys with a did-you-mean, and values that are not addresses', async () => {
    const data = withConfig();
    const typo = await data(['config', 'set', 'apu', 'https://x.example']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('there is no setting "apu": did you mean api?');
    const bad = await data(['config', 'set', 'site', 'ftp://x.example']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('site must be an http(s) URL');
  });
});
