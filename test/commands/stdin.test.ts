/**
 * The commands that read standard input read it through `io.stdin`: a token for `login
 * --with-token`, the rows of `data cat -`, the answer to a question. Driven here in this
 * process, with what standard input holds given as text.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answering, runCli, type CliOptions } from '../helpers/cli.js';
import { revocation, signedIn, signedOut, userIds } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';
import { deletion } from '../helpers/msw/reads.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjk5OTk5OTk5OTl9.c3RkaW4tdG9rZW4';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** `data` against the msw hub, its settings and credentials in `config`. */
function data(args: string[], config: string, options: CliOptions = {}) {
  return runCli(args, {
    ...options,
    fetch: globalThis.fetch,
    env: { DATA_API: HUB, DATA_CONFIG_DIR: config, ...options.env },
  });
}

const freshConfig = () => mkdtempSync(join(tmpdir(), 'stdin-config-'));

describe('data login --with-token', () => {
  it('takes the token piped in, checks it with the hub and keeps it', async () => {
    server.use(signedIn());
    const config = freshConfig();
    const login = await data(['login', '--with-token'], config, { stdin: `  ${TOKEN}\n` });
    expect(login, login.err).toMatchObject({ code: 0, out: `Logged in to ${HUB} as ada\n` });
    expect(login.out + login.err).not.toContain(TOKEN);
    expect(readFileSync(join(config, 'credentials.json'), 'utf8')).toContain(TOKEN);
    const whoami = await data(['--json', 'whoami'], config);
    expect(whoami.code, whoami.err).toBe(0);
    expect(JSON.parse(whoami.out)).toMatchObject({ username: 'ada', hub: HUB });
  });

  it('is a usage error, exit 2, when standard input holds nothing', async () => {
    const { code, out, err } = await data(['login', '--with-token'], freshConfig(), {
      stdin: '\n',
    });
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain('no token on standard input');
  });

  it('refuses, exit 2, a token of two lines piped in, before any request', async () => {
    const config = freshConfig();
    const { code, out, err } = await data(['login', '--with-token'], config, {
      stdin: `${TOKEN}\nx\n`,
    });
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toContain('the token in standard input holds');
    expect(err).not.toContain('network');
    expect(() => readFileSync(join(config, 'credentials.json'))).toThrow();
  });

  it('refuses, exit 4, a DATA_TOKEN holding a line break, naming it, not the network', async () => {
    for (const args of [['whoami'], ['--json', 'whoami']]) {
      const { code, out, err } = await data(args, freshConfig(), {
        env: { DATA_TOKEN: `dt_${'a'.repeat(20)}\nx` },
      });
      expect(code, err).toBe(4);
      expect(out + err).toContain('the token in DATA_TOKEN holds');
      expect(out + err).not.toContain('network');
    }
  });

  it('keeps nothing, exit 4, when the hub does not accept the token piped in', async () => {
    server.use(signedOut());
    const config = freshConfig();
    const { code, err } = await data(['--json', 'login', '--with-token'], config, {
      stdin: TOKEN,
    });
    expect(code, err).toBe(4);
    expect(() => readFileSync(join(config, 'credentials.json'))).toThrow();
  });

  it('logs out of the token it kept: the hub revokes it', async () => {
    server.use(signedIn());
    const config = freshConfig();
    expect((await data(['login', '--with-token'], config, { stdin: TOKEN })).code).toBe(0);
    const revoked: string[] = [];
    server.use(revocation(revoked));
    const logout = await data(['logout'], config);
    expect(logout).toMatchObject({ code: 0, out: `Logged out of ${HUB}\n` });
    expect(revoked).toEqual([TOKEN]);
  });
});

describe('data cat -', () => {
  it('prints the table piped in, typed for JSON', async () => {
    const { code, out, err } = await data(['cat', '-', '--format', 'json'], freshConfig(), {
      stdin: 'id,name\n1,Ada\n2,Grace\n',
    });
    expect(code, err).toBe(0);
    expect(JSON.parse(out)).toEqual([
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
    ]);
  });

  it('writes control characters in cells unescaped to a pipe, and CRLF line ends as LF', async () => {
    const csv = 'a,b\r\n"x, y",\x1b[2Jclear\r\n';
    const { code, out } = await data(['cat', '-'], freshConfig(), { stdin: csv });
    expect(code).toBe(0);
    expect(out).toBe('a,b\n"x, y",\x1b[2Jclear\n');
  });
});

/**
 * Standard input that stays open and sends nothing (a FIFO no one writes to), and a signal
 * that aborts, as Ctrl-C does, once the command reads it.
 */
function silentStdin(): { stdin: PassThrough; signal: AbortSignal } {
  const stdin = new PassThrough();
  const controller = new AbortController();
  stdin.on('newListener', (event) => {
    if (event === 'readable' || event === 'data') setImmediate(() => controller.abort('SIGINT'));
  });
  return { stdin, signal: controller.signal };
}

describe('Ctrl-C while standard input is read', () => {
  it('stops data login --with-token, exit 130', { timeout: 5000 }, async () => {
    const silent = silentStdin();
    const { code, out } = await data(['login', '--with-token'], freshConfig(), silent);
    expect({ code, out }).toEqual({ code: 130, out: '' });
    // Closed, or it would keep the process from ending.
    expect(silent.stdin.destroyed).toBe(true);
  });

  it('stops data cat -, exit 130', { timeout: 5000 }, async () => {
    const silent = silentStdin();
    const { code, out } = await data(['cat', '-'], freshConfig(), silent);
    expect({ code, out }).toEqual({ code: 130, out: '' });
    // Closed, or it would keep the process from ending.
    expect(silent.stdin.destroyed).toBe(true);
  });
});

describe('a question answered on standard input', () => {
  const ask = (answer: string, config: string) =>
    data(['delete', 'ada/old-prices'], config, {
      ...answering([['Delete ada/old-prices', answer]]),
      tty: true,
      env: { DATA_TOKEN: TOKEN },
    });

  it('deletes the dataset when the answer to "Delete …?" is yes', async () => {
    const deleted: string[] = [];
    server.use(userIds(), deletion('u1', 'old-prices', deleted));
    const { code, out, err } = await ask('y\n', freshConfig());
    expect(code, err).toBe(0);
    expect(err).toContain('Delete ada/old-prices and all its revisions');
    expect(out).toBe('deleted ada/old-prices\n');
    expect(deleted).toEqual(['u1/old-prices']);
  });

  it('deletes nothing, exit 1, when the answer is no', async () => {
    const deleted: string[] = [];
    server.use(userIds(), deletion('u1', 'old-prices', deleted));
    const { code, out, err } = await ask('n\n', freshConfig());
    expect(code, err).toBe(1);
    expect(out).toBe('');
    expect(err).toContain('nothing deleted');
    expect(deleted).toEqual([]);
  });

  it('deletes nothing, exit 130, when the answer is Ctrl-C', async () => {
    const deleted: string[] = [];
    server.use(userIds(), deletion('u1', 'old-prices', deleted));
    const { code, out } = await ask('\x03', freshConfig());
    expect({ code, out }).toEqual({ code: 130, out: '' });
    expect(deleted).toEqual([]);
  });
});
