/**
 * `data token create|list|revoke` in-process against the hub's /api/tokens (msw): the token
 * alone on stdout, once; lists without it; the hub's refusals and the usage errors with
 * their exit codes; names shown escaped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { stripVTControlCharacters } from 'node:util';
// The width terminals' tools count (string-width, in the tree through ora): not the CLI's own rule.
import stringWidth from 'string-width';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { signedIn } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';
import { tokenHub, tokensApi, type TokenHub } from '../helpers/msw/tokens.js';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function data(args: string[], options: { tty?: boolean; token?: string } = {}) {
  return runCli(args, {
    tty: options.tty ?? false,
    env: { DATA_API: HUB, DATA_TOKEN: options.token ?? 'session-token' },
    fetch: globalThis.fetch,
  });
}

/** `data` interrupted (Ctrl-C) once the hub has the request: its answer never comes. */
async function interrupted(
  args: string[],
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
) {
  const ctrlC = new AbortController();
  const reached: string[] = [];
  server.use(
    signedIn(),
    http[method](`${HUB}${path}`, ({ request }) => {
      reached.push(`${request.method} ${new URL(request.url).pathname}`);
      ctrlC.abort('SIGINT');
      return new Promise<never>(() => undefined);
    }),
  );
  const result = await runCli(args, {
    env: { DATA_API: HUB, DATA_TOKEN: 'session-token' },
    fetch: globalThis.fetch,
    signal: ctrlC.signal,
  });
  return { ...result, reached };
}

describe('Ctrl-C once a request was sent', () => {
  it('says the hub may have made the change, and how to check it, by name, exit 130', async () => {
    const tokens = '`data token list` shows your tokens';
    const acme = '`data org members acme` shows the organisation';
    const cities = '`data publisher list ada/cities` shows its publishers';
    const cases: [string[], 'post' | 'put' | 'delete', string, string][] = [
      [['token', 'create', 'ci', '--scope', 'read'], 'post', '/api/tokens', tokens],
      [['token', 'revoke', 'ci'], 'delete', '/api/tokens/ci', tokens],
      [['org', 'create', 'acme'], 'post', '/api/orgs', acme],
      // Owner names are kept in lower case: the command to check names it so.
      [
        ['org', 'add', 'Acme', 'grace', '--role', 'reader'],
        'put',
        '/api/orgs/Acme/members/grace',
        acme,
      ],
      [['org', 'remove', 'acme', 'grace'], 'delete', '/api/orgs/acme/members/grace', acme],
      [
        [
          'publisher',
          'add',
          'ada/cities',
          '--issuer',
          'https://issuer.example',
          '--claim',
          'repository=ada/x',
        ],
        'post',
        '/api/publishers/ada/cities',
        cities,
      ],
      [
        ['publisher', 'remove', 'ada/cities', 'p1'],
        'delete',
        '/api/publishers/ada/cities/p1',
        cities,
      ],
    ];
    for (const [args, method, path, check] of cases) {
      const { code, out, err, reached } = await interrupted(args, method, path);
      expect(reached, args.join(' ')).toEqual([`${method.toUpperCase()} ${path}`]);
      expect({ code, out }, args.join(' ')).toEqual({ code: 130, out: '' });
      expect(err, args.join(' ')).toBe(
        `error: interrupted\nhint: the hub may have made the change before it stopped: ${check}\n`,
      );
      const json = await interrupted(['--json', ...args], method, path);
      expect(JSON.parse(json.out)).toMatchObject({
        error: { code: 'E_INTERRUPTED', hint: expect.stringContaining(check) as unknown },
      });
    }
  });

  it('says only "interrupted" when nothing was to change', async () => {
    const { code, err } = await interrupted(['token', 'list'], 'get', '/api/tokens');
    expect({ code, err }).toEqual({ code: 130, err: 'error: interrupted\n' });
  });
});

function hub(maxDays?: number): TokenHub {
  const state = tokenHub();
  server.use(signedIn(), ...tokensApi(state, maxDays));
  return state;
}

describe('data token create', () => {
  it('prints the token alone on stdout, once, and what it may do on stderr', async () => {
    const state = hub();
    const made = await data([
      'token',
      'create',
      'ci',
      '--scope',
      'publish',
      '--dataset',
      'ada/cities',
      '--dataset',
      'ada/towns',
      '--expires',
      '90',
    ]);
    expect(made.code).toBe(0);
    expect(made.out).toBe(`${state.made[0] ?? ''}\n`);
    expect(made.err).toContain('"ci" (publish on ada/cities, ada/towns)');
    expect(made.err).toContain('expires 2027-02-24');
    expect(made.err).not.toContain(state.made[0] ?? '');
    expect(state.records.get('ci')).toMatchObject({
      scope: 'publish',
      datasets: ['ada/cities', 'ada/towns'],
    });
    expect(state.seen).toEqual(['session-token']);
  });

  it('prints one JSON document with --json: the token and its record', async () => {
    const state = hub();
    const made = await data(['token', 'create', 'ci', '--scope', 'read', '--json']);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.out)).toEqual({ token: state.made[0], record: state.records.get('ci') });
  });

  it('is refused with the reason, exit 1, for a name taken', async () => {
    hub(60);
    expect((await data(['token', 'create', 'ci', '--scope', 'read'])).code).toBe(0);
    const again = await data(['token', 'create', 'ci', '--scope', 'admin']);
    expect(again.code).toBe(1);
    expect(again.out).toBe('');
    expect(again.err).toContain('you already have a token named "ci"');
    const json = await data(['token', 'create', 'ci', '--scope', 'read', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'E_REFUSED' } });
  });

  it('is a usage error, exit 2, for --expires out of range, whether data or the hub finds it', async () => {
    const state = hub(60);
    // Below 1: data says so, and asks the hub nothing.
    for (const days of ['0', '-1']) {
      const short = await data([
        'token',
        'create',
        `d${days}`,
        '--scope',
        'read',
        '--expires',
        days,
      ]);
      expect({ code: short.code, out: short.out }, days).toEqual({ code: 2, out: '' });
      expect(short.err, days).toContain('expected a whole number of days, 1 or more');
    }
    expect(state.seen).toEqual([]);
    // Past the hub's maximum, which only the hub knows: its reason, in the option's name.
    const long = await data(['token', 'create', 'd61', '--scope', 'read', '--expires', '61']);
    expect({ code: long.code, out: long.out }).toEqual({ code: 2, out: '' });
    expect(long.err).toBe(
      'error: token create: a token lives from 1 to 60 days on this hub (--expires was 61)\n',
    );
    const json = await data([
      'token',
      'create',
      'd61',
      '--scope',
      'read',
      '--expires',
      '61',
      '--json',
    ]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'E_USAGE' } });
    // --dataset with a read token: data says so before the hub would.
    const read = await data(['token', 'create', 'r', '--scope', 'read', '--dataset', 'ada/cities']);
    expect(read.code).toBe(2);
    expect(read.err).toContain('--dataset limits publishing, for --scope publish or admin');
    expect(state.made).toEqual([]);
  });

  it('is a usage error, exit 2, with an unknown scope, no scope, a bad name, --dataset or --expires', async () => {
    const state = hub();
    for (const args of [
      ['ci', '--scope', 'write'],
      ['ci'],
      ['ci', '--scope', 'publish', '--dataset', 'cities'],
      ['ci', '--scope', 'read', '--expires', 'soon'],
      ['ci', '--scope', 'read', '--expires', '1.5'],
      ['a\u001b[2Jb', '--scope', 'read'],
      ['x'.repeat(101), '--scope', 'read'],
    ]) {
      const refused = await data(['token', 'create', ...args]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.out).toBe('');
    }
    expect(state.made).toEqual([]);
  });

  it('refuses a name with a space at either end before asking the hub, exit 2', async () => {
    const state = hub();
    for (const name of [' sp ', 'sp ', ' sp']) {
      const refused = await data(['token', 'create', name, '--scope', 'read']);
      expect(refused, JSON.stringify(name)).toEqual({
        code: 2,
        out: '',
        err: 'error: a token name cannot begin or end with a space\n',
      });
    }
    expect(state.made).toEqual([]);
  });

  it('needs a sign-in: exit 4 when the hub refuses the token', async () => {
    const state = tokenHub();
    server.use(signedIn(), ...tokensApi(state));
    const { http, HttpResponse } = await import('msw');
    server.use(
      http.post(`${HUB}/api/tokens`, () =>
        HttpResponse.json({ error: 'sign in' }, { status: 401 }),
      ),
    );
    const refused = await data(['token', 'create', 'ci', '--scope', 'read']);
    expect(refused.code).toBe(4);
    expect(refused.err).toContain('DATA_TOKEN');
  });
});

describe('data whoami with a named token', () => {
  it('says its name, scope, datasets and expiry, as the hub tells them', async () => {
    const { http, HttpResponse } = await import('msw');
    server.use(
      http.get(`${HUB}/auth/check`, () =>
        HttpResponse.json({
          authenticated: true,
          profile: { id: 'u1', username: 'ada' },
          token: {
            name: 'ci',
            scope: 'publish',
            datasets: ['ada/cities'],
            expires: '2027-01-01T00:00:00.000Z',
          },
        }),
      ),
    );
    const who = await data(['whoami'], { token: `dt_${'a'.repeat(43)}` });
    expect(who.code).toBe(0);
    expect(who.out).toContain('expires:  2027-01-01T00:00:00.000Z');
    expect(who.out).toContain('token:    "ci" (publish on ada/cities)');
    const json = await data(['whoami', '--json'], { token: `dt_${'a'.repeat(43)}` });
    expect(JSON.parse(json.out)).toMatchObject({
      username: 'ada',
      expires: '2027-01-01T00:00:00.000Z',
      token: { name: 'ci', scope: 'publish', datasets: ['ada/cities'] },
    });
  });
});

describe('data login --with-token and data logout with a named token', () => {
  it('keeps it, and forgets it on logout without asking the hub to revoke it', async () => {
    const { http, HttpResponse } = await import('msw');
    const named = `dt_${'b'.repeat(43)}`;
    const revoked: string[] = [];
    server.use(
      signedIn(),
      http.post(`${HUB}/auth/logout`, ({ request }) => {
        revoked.push(request.headers.get('auth-token') ?? '');
        return HttpResponse.json({ revoked: false });
      }),
    );
    const config = mkdtempSync(join(tmpdir(), 'token-config-'));
    try {
      const env = { DATA_API: HUB, DATA_CONFIG_DIR: config };
      const login = await runCli(['login', '--with-token'], {
        env,
        stdin: `${named}\n`,
        fetch: globalThis.fetch,
      });
      expect(login).toMatchObject({ code: 0, out: `Logged in to ${HUB} as ada\n` });
      expect(login.out + login.err).not.toContain(named);
      expect(readFileSync(join(config, 'credentials.json'), 'utf8')).toContain(named);
      // The hub says the token's name, which the note then gives.
      server.use(
        http.get(`${HUB}/auth/check`, () =>
          HttpResponse.json({
            authenticated: true,
            profile: { id: 'u1', username: 'ada' },
            token: { name: "ada's laptop", scope: 'admin', datasets: [], expires: '2027-01-01' },
          }),
        ),
      );
      const logout = await runCli(['logout'], { env, fetch: globalThis.fetch });
      expect(logout).toMatchObject({ code: 0, out: `Logged out of ${HUB}\n` });
      expect(logout.err).toContain(
        `note: the named token "ada's laptop" still works elsewhere until it expires: \`data token revoke 'ada'\\''s laptop'\` revokes it\n`,
      );
      expect(revoked).toEqual([]);
      expect(readFileSync(join(config, 'credentials.json'), 'utf8')).not.toContain(named);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });
});

describe('data token list and revoke', () => {
  // The stand-in hub's tokens are made on 2026-11-26: listed the day after, whatever today is.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-27T12:00:00.000Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('list the records, never a token, with names escaped', async () => {
    const state = hub();
    await data(['token', 'create', 'ci', '--scope', 'publish', '--dataset', 'ada/cities']);
    state.records.set('odd\u001b[2J', {
      ...(state.records.get('ci') ?? ({} as never)),
      name: 'odd\u001b[2J',
    });
    const listed = await data(['token', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain(state.made[0] ?? '');
    expect(listed.out).toContain(
      'ci\tpublish\tada/cities\t2026-11-26 21:00Z\tnever\t2026-12-26 21:00Z\tactive\n',
    );
    expect(listed.out).toContain('odd\\x1b[2J\t');
    expect(listed.out).not.toContain('\u001b');
    const json = await data(['token', 'list', '--json']);
    const records = JSON.parse(json.out) as { name: string }[];
    expect(records.map((record) => record.name)).toEqual(['ci', 'odd\u001b[2J']);
    expect(json.out).not.toContain(state.made[0] ?? '');
    const table = await data(['token', 'list'], { tty: true });
    expect(table.out).toMatch(/name\s+scope\s+datasets\s+created\s+last used\s+expires\s+state/);
  });

  it('list marks an expired token, on a terminal and in a pipe', async () => {
    const state = hub();
    await data(['token', 'create', 'ci', '--scope', 'read']);
    state.records.set('old', {
      ...(state.records.get('ci') ?? ({} as never)),
      name: 'old',
      created: '2025-01-01T00:00:00.000Z',
      expires: '2025-01-31T00:00:00.000Z',
    });
    const piped = await data(['token', 'list']);
    expect(piped.out.split('\n')).toEqual([
      expect.stringMatching(/^ci\t.*\tactive$/) as unknown,
      'old\tread\tany\t2025-01-01 00:00Z\tnever\t2025-01-31 00:00Z\texpired',
      '',
    ]);
    const table = await data(['token', 'list'], { tty: true });
    const lines = stripVTControlCharacters(table.out).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^name\s+scope\s+datasets\s+created\s+last used\s+expires\s+state$/);
    expect(lines[1]).toMatch(/^ci\s.*\sactive$/);
    expect(lines[2]).toMatch(/^old\s.*2025-01-31 00:00Z\s+expired$/);
  });

  it('list lines up its columns on a terminal by display width: emoji and CJK take two columns', async () => {
    const state = hub();
    await data(['token', 'create', 'ci', '--scope', 'read']);
    const names = ['🔑 deploy', '日本語のトークン', '👩\u200d💻 dev', '漢'.repeat(20)];
    for (const name of names)
      state.records.set(name, { ...(state.records.get('ci') ?? ({} as never)), name });
    const table = await data(['token', 'list'], { tty: true });
    const lines = stripVTControlCharacters(table.out).trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    // The name column is as wide as its widest cell, the long name cut to 23 columns (11
    // characters of two and "…"): every scope starts after 25 columns, whatever is before it.
    for (const line of lines) {
      const scope = /\s(scope|read)\s/.exec(line)?.index ?? -1;
      expect(stringWidth(line.slice(0, scope + 1)), line).toBe(25);
    }
    expect(lines.at(-1)).toMatch(/^漢{11}… {2}read/);
  });

  it('revoke one by name, and say so when there is none', async () => {
    const state = hub();
    await data(['token', 'create', 'ci', '--scope', 'read']);
    const revoked = await data(['token', 'revoke', 'ci']);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toBe('revoked "ci"\n');
    expect(state.records.size).toBe(0);
    const again = await data(['token', 'revoke', 'ci', '--json']);
    expect(again.code).toBe(1);
    const error = (JSON.parse(again.out) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('E_REFUSED');
    expect(error.message).toContain('no token named "ci"');
  });
});
