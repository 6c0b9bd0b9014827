/**
 * The real `data` against a real `data serve --config` whose sign-in is a real OpenID
 * provider on loopback: login, whoami, publish and get as the provider's user; the web
 * pages signed in through the provider in Chromium; and a hub that must not start.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../hub/helpers.js';
import { HAS_CHROMIUM, launchChromium } from '../helpers/chromium.js';
import {
  HttpBrowser,
  oidcSignIn,
  startOidcProvider,
  type RunningProvider,
} from '../helpers/identity.js';
import { runBin } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const SCREENSHOTS = join(ROOT, 'test-output');

const home = mkdtempSync(join(tmpdir(), 'data-sso-'));
let idp: RunningProvider;
let hub: ChildProcessWithoutNullStreams;
let api = '';

function data(
  args: string[],
  options: { cwd?: string; onErr?: (text: string) => void; env?: Record<string, string> } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const { onErr } = options;
  return runBin(args, {
    cwd: options.cwd ?? home,
    env: {
      DATA_API: api,
      DATA_CONFIG_DIR: join(home, 'config'),
      DATA_KEYCHAIN: '0',
      DATA_TOKEN: '',
      ...options.env,
    },
    ...(onErr ? { onErr: (err: string) => onErr(err) } : {}),
  });
}

/** A hub configuration whose one provider is the test's OIDC provider, its secret in `secretEnv`. */
function hubConfig(file: string, secretEnv: string): string {
  const config = join(home, file);
  const idpSettings = {
    type: 'oidc',
    issuer: idp.url,
    clientId: 'hub',
    clientSecret: { env: secretEnv },
  };
  writeFileSync(config, JSON.stringify({ providers: { idp: idpSettings } }));
  return config;
}

beforeAll(async () => {
  idp = await startOidcProvider();
  const config = hubConfig('hub.json', 'IDP_SECRET');
  hub = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--data-dir', join(home, 'hub'), '--config', config],
    {
      env: { ...process.env, IDP_SECRET: 'hub-secret', NO_COLOR: '1' },
    },
  );
  let log = '';
  hub.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  api = await new Promise<string>((resolve, reject) => {
    let out = '';
    hub.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    hub.on('exit', (code) => reject(new Error(`data serve exited with ${String(code)}: ${log}`)));
  });
  idp.register(`${api}/auth/callback/idp`);
});

afterAll(async () => {
  hub.kill('SIGINT');
  await idp.close();
  rmSync(home, { recursive: true, force: true });
});

describe('data against a hub signing in through OpenID Connect', () => {
  it('logs in with --provider, then whoami, publish and get work as that user', async () => {
    let signing: Promise<unknown> | undefined;
    const login = await data(['login', '--no-browser', '--provider', 'idp'], {
      onErr: (text) => {
        const url = /Sign in at:\n\s+(\S+)/.exec(text)?.[1];
        if (url && !signing) signing = oidcSignIn(new HttpBrowser(), url, 'erin');
      },
    });
    const page = (await signing) as { html: string };
    expect(page.html).toContain('Signed in');
    expect(login.code).toBe(0);
    expect(login.out).toBe(`Logged in to ${api} as erin\n`);
    const whoami = await data(['--json', 'whoami']);
    expect(JSON.parse(whoami.out)).toMatchObject({ username: 'erin' });
    const published = await data(['publish', join(EXAMPLES, 'cities')]);
    expect(published.code).toBe(0);
    const cwd = mkdtempSync(join(tmpdir(), 'data-sso-get-'));
    expect((await data(['get', 'erin/world-cities'], { cwd })).code).toBe(0);
    expect(
      readFileSync(join(cwd, 'erin/world-cities/data/cities.csv')).equals(
        readFileSync(join(EXAMPLES, 'cities/data/cities.csv')),
      ),
    ).toBe(true);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('names the providers when --provider names none of them', async () => {
    const login = await data(['login', '--no-browser', '--provider', 'nope']);
    expect(login.code).toBe(2);
    expect(login.err).toContain('idp');
  });

  describe.skipIf(!HAS_CHROMIUM)('in a real browser', () => {
    it('signs in on the hub pages through the provider and shows the owner a private dataset', async () => {
      const pkg = mkdtempSync(join(tmpdir(), 'data-sso-private-'));
      writeFileSync(join(pkg, 'secret.csv'), 'id,note\n1,only erin\n');
      writeFileSync(
        join(pkg, 'datapackage.json'),
        JSON.stringify({
          name: 'erins-notes',
          title: 'Erin notes',
          resources: [{ name: 'secret', path: 'secret.csv' }],
        }),
      );
      expect((await data(['publish', pkg, '--findability', 'private'])).code).toBe(0);
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        expect((await page.goto(`${api}/erin/erins-notes`))?.status()).toBe(404);
        await page.goto(api);
        await page.click('text=Sign in');
        await page.click('text=Sign in with idp');
        await page.fill('input[name=login]', 'erin');
        await page.fill('input[name=password]', 'anything');
        await page.click('button[type=submit]');
        await page.click('button[type=submit]');
        await page.waitForURL(`${api}/`);
        expect(await page.textContent('header nav')).toContain('Sign out erin');
        const cookie = (await page.context().cookies()).find(
          (entry) => entry.name === 'data_session',
        );
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
        await page.goto(`${api}/erin/erins-notes`);
        expect(await page.textContent('h1')).toBe('Erin notes');
        expect(await page.textContent('.badge.wait')).toBe('private');
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({
          path: join(SCREENSHOTS, 'hub-signed-in-private.png'),
          fullPage: true,
        });
        await page.goto(`${api}/auth/logout`);
        await page.click('form[action="/auth/logout"] button');
        await page.waitForURL(`${api}/`);
        expect((await page.goto(`${api}/erin/erins-notes`))?.status()).toBe(404);
      } finally {
        await browser.close();
        rmSync(pkg, { recursive: true, force: true });
      }
    }, 60_000);
  });
});

describe('a hub that would be open to anyone', () => {
  it('refuses to listen beyond loopback without a sign-in provider, and says why', async () => {
    const run = await data([
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--data-dir',
      join(home, 'open'),
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('needs a sign-in provider');
    expect(run.err).toContain('--dev-sign-in');
  });

  it('refuses a configuration whose secret is missing, without printing any secret', async () => {
    const config = hubConfig('broken.json', 'NOT_SET_HERE');
    const run = await data([
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(home, 'broken'),
      '--config',
      config,
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('NOT_SET_HERE is not set');
  });
});
