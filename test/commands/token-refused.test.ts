/**
 * A token the hub refuses (unknown to it, revoked or expired: a 401 with WWW-Authenticate)
 * is an authentication error, exit 4, whatever command sent it, with a message that names
 * where the token came from (DATA_TOKEN, the stored sign-in, a token a CI job traded) and
 * what to do. Before, `data get` of a private dataset with a dead DATA_TOKEN said "no
 * dataset … (or it is private)", exit 2.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { userIds } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const DEAD = `dt_${'d'.repeat(43)}`;
/** A sign-in's token (a JWT) the hub no longer takes. */
const DEAD_SIGN_IN = 'eyJhbGciOiJIUzI1NiJ9.eyJraW5kIjoidXNlciJ9.dead-signature';
const CITIES = join(import.meta.dirname, '../../examples/cities');

/** The hub of the new rule: any request with a credential it does not take answers 401. */
function refusingHub(): string[] {
  const seen: string[] = [];
  server.use(
    userIds({ ada: 'u1' }),
    // Without a credential, /auth/check answers who is signed in: no one.
    http.get(`${HUB}/auth/check`, ({ request }) =>
      request.headers.has('auth-token')
        ? undefined
        : HttpResponse.json({ authenticated: false, providers: {} }),
    ),
    http.all(`${HUB}/*`, ({ request }) => {
      const token = request.headers.get('auth-token');
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      if (token === DEAD || token === DEAD_SIGN_IN)
        return HttpResponse.json(
          { error: 'the token was refused: it is unknown, revoked or expired' },
          { status: 401, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } },
        );
      return HttpResponse.json({ error: 'not found' }, { status: 404 });
    }),
  );
  return seen;
}

/** Every command that talks to the hub with the user's token. */
const COMMANDS: string[][] = [
  ['get', 'ada/private'],
  ['get', 'ada/private', '--zip'],
  ['info', 'ada/private'],
  ['cat', 'ada/private', 'prices'],
  ['diff', 'ada/private@1', 'ada/private@2'],
  ['history', 'ada/private'],
  ['search', 'prices'],
  ['list'],
  ['list', 'ada'],
  ['delete', 'ada/private', '--yes'],
  ['whoami'],
  ['publish', CITIES],
  ['publish', CITIES, '--dry-run'],
  ['validate', `${HUB}/ada/private/datapackage.json`],
  ['token', 'list'],
  ['token', 'create', 'ci', '--scope', 'read'],
  ['token', 'revoke', 'ci'],
  ['org', 'members', 'acme'],
  ['org', 'create', 'acme'],
  ['publisher', 'list', 'ada/cities'],
];

describe('a token the hub refuses (401)', () => {
  it('in DATA_TOKEN: exit 4 from every command, naming DATA_TOKEN and what to do', async () => {
    // No sign-in is kept (a fresh configuration folder): unsetting it needs a `data login`.
    for (const args of COMMANDS) {
      const seen = refusingHub();
      const cwd = mkdtempSync(join(tmpdir(), 'data-refused-'));
      const result = await runCli(args, {
        cwd,
        env: { DATA_API: HUB, DATA_TOKEN: DEAD },
        fetch: globalThis.fetch,
      });
      const name = args.join(' ');
      expect(seen.length, name).toBeGreaterThan(0);
      expect({ code: result.code, out: result.out }, name).toEqual({ code: 4, out: '' });
      expect(result.err, name).toBe(
        `error: ${HUB} refused the token in DATA_TOKEN: it is unknown, revoked or expired\n` +
          'hint: set DATA_TOKEN to a new token (`data token create` makes one), or unset it and run `data login`\n',
      );
      expect(result.err, name).not.toContain(DEAD);
      const json = await runCli(['--json', ...args], {
        cwd,
        env: { DATA_API: HUB, DATA_TOKEN: DEAD },
        fetch: globalThis.fetch,
      });
      expect(json.code, name).toBe(4);
      expect(JSON.parse(json.out), name).toMatchObject({ error: { code: 'E_AUTH' } });
      server.resetHandlers();
    }
  });

  it('in DATA_TOKEN, with a sign-in kept: says to unset it to use the sign-in', async () => {
    const config = mkdtempSync(join(tmpdir(), 'data-refused-'));
    writeFileSync(
      join(config, 'credentials.json'),
      JSON.stringify({ [HUB]: { token: 'kept', profile: { id: 'u1', username: 'ada' } } }),
    );
    for (const args of [['whoami'], ['token', 'list'], ['get', 'ada/private']]) {
      refusingHub();
      const result = await runCli(args, {
        cwd: config,
        env: { DATA_API: HUB, DATA_CONFIG_DIR: config, DATA_TOKEN: DEAD },
        fetch: globalThis.fetch,
      });
      expect({ code: result.code, err: result.err }, args.join(' ')).toEqual({
        code: 4,
        err:
          `error: ${HUB} refused the token in DATA_TOKEN: it is unknown, revoked or expired\n` +
          'hint: set DATA_TOKEN to a new token (`data token create` makes one), or unset it to use your sign-in\n',
      });
      server.resetHandlers();
    }
  });

  it('kept by data login: exit 4, naming where it is kept and to sign in again', async () => {
    const config = mkdtempSync(join(tmpdir(), 'data-refused-'));
    writeFileSync(
      join(config, 'credentials.json'),
      JSON.stringify({ [HUB]: { token: DEAD, profile: { id: 'u1', username: 'ada' } } }),
    );
    for (const args of [
      ['get', 'ada/private'],
      ['history', 'ada/private'],
      ['token', 'list'],
    ]) {
      refusingHub();
      const result = await runCli(args, {
        cwd: config,
        env: { DATA_API: HUB, DATA_CONFIG_DIR: config },
        fetch: globalThis.fetch,
      });
      expect(result.code, args.join(' ')).toBe(4);
      expect(result.err, args.join(' ')).toBe(
        `error: ${HUB} refused the token kept in ${join(config, 'credentials.json')}: it is unknown, revoked or expired\n` +
          'hint: run `data login` again\n',
      );
      server.resetHandlers();
    }
  });

  it('kept by data login is forgotten by data logout, with no warning: nothing is left to revoke', async () => {
    const seen = refusingHub();
    const config = mkdtempSync(join(tmpdir(), 'data-refused-'));
    writeFileSync(
      join(config, 'credentials.json'),
      JSON.stringify({ [HUB]: { token: DEAD_SIGN_IN, profile: { id: 'u1', username: 'ada' } } }),
    );
    const env = { DATA_API: HUB, DATA_CONFIG_DIR: config };
    const result = await runCli(['logout'], { env, fetch: globalThis.fetch });
    // It said 'warning: the hub did not revoke the token (auth logout: 401 …)'.
    expect(result).toEqual({ code: 0, out: `Logged out of ${HUB}\n`, err: '' });
    expect(seen).toEqual(['POST /auth/logout']);
  });

  it('given to data login --with-token: exit 4, and nothing is kept', async () => {
    refusingHub();
    const config = mkdtempSync(join(tmpdir(), 'data-refused-'));
    const result = await runCli(['login', '--with-token'], {
      stdin: `${DEAD}\n`,
      env: { DATA_API: HUB, DATA_CONFIG_DIR: config },
      fetch: globalThis.fetch,
    });
    expect(result.code).toBe(4);
    expect(result.err).toBe(
      `error: ${HUB} refused this token: it is unknown, revoked or expired\n` +
        'hint: run `data login`, or set DATA_TOKEN\n',
    );
    const whoami = await runCli(['whoami'], {
      env: { DATA_API: HUB, DATA_CONFIG_DIR: config },
      fetch: globalThis.fetch,
    });
    expect(whoami.err).toContain('not logged in');
  });
});
