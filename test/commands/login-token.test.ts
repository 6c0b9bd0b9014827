/**
 * `data login --with-token` on a terminal asks for the token with hidden input (nothing of it
 * echoed), where it waited silently for standard input to end; in a pipe it reads standard
 * input as before.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answering, runCli } from '../helpers/cli.js';
import { signedIn } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const TOKEN = `dt_${'k'.repeat(43)}`;

function login(config: string, options: Parameters<typeof runCli>[1]) {
  return runCli(['login', '--with-token'], {
    ...options,
    env: { DATA_API: HUB, DATA_CONFIG_DIR: config },
    fetch: globalThis.fetch,
  });
}

describe('data login --with-token', () => {
  it('asks for the token on a terminal, hidden, and keeps it', async () => {
    server.use(signedIn());
    const config = mkdtempSync(join(tmpdir(), 'data-login-'));
    const { code, out, err } = await login(config, {
      ...answering([['Paste a token', `${TOKEN}\r`]]),
      tty: true,
    });
    expect(code, err).toBe(0);
    expect(out).toBe(`Logged in to ${HUB} as ada\n`);
    expect(err).toContain(`Paste a token for ${HUB}:`);
    expect(err).not.toContain(TOKEN);
    const kept = JSON.parse(readFileSync(join(config, 'credentials.json'), 'utf8')) as Record<
      string,
      { token: string }
    >;
    expect(kept[HUB]?.token).toBe(TOKEN);
  });

  it('says no token was given when Enter is pressed at the question with nothing typed, exit 2', async () => {
    const config = mkdtempSync(join(tmpdir(), 'data-login-'));
    const { code, out, err } = await login(config, {
      ...answering([['Paste a token', '\r']]),
      tty: true,
    });
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain('error: no token given\nhint: paste the token, then press Enter\n');
    expect(err).not.toContain('standard input');
  });

  it('refuses, exit 2, to ask on a terminal whose standard error goes elsewhere (2>file)', async () => {
    const config = mkdtempSync(join(tmpdir(), 'data-login-'));
    // Standard input is the terminal; stdout and stderr are not: the question could not be seen.
    const { code, out, err } = await login(config, {
      ...answering([['Paste a token', `${TOKEN}\r`]]),
      tty: false,
    });
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toBe(
      'error: login --with-token asks for the token on standard error, which is not a terminal here\nhint: pipe the token in (echo "$TOKEN" | data login --with-token), or leave standard error on the terminal\n',
    );
  });

  it('reads standard input in a pipe, asking nothing', async () => {
    server.use(signedIn());
    const config = mkdtempSync(join(tmpdir(), 'data-login-'));
    const { code, out, err } = await login(config, { stdin: `${TOKEN}\n` });
    expect(code, err).toBe(0);
    expect(out).toBe(`Logged in to ${HUB} as ada\n`);
    expect(err).not.toContain('Paste a token');
  });
});
