/**
 * `data org create|add|remove|members|delete` and `data publish --owner` in-process against the
 * hub's /api/orgs (msw): what is printed, --json's one document, the hub's refusals (exit 1)
 * and the usage errors (exit 2), names from the hub shown escaped.
 */
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { signedIn, signedOut } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';
import { orgHub, orgsApi, type OrgHub } from '../helpers/msw/orgs.js';
import { EXAMPLES } from '../hub/helpers.js';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function data(args: string[], options: { tty?: boolean } = {}) {
  return runCli(args, {
    tty: options.tty ?? false,
    env: { DATA_API: HUB, DATA_TOKEN: 'session-token' },
    fetch: globalThis.fetch,
  });
}

function hub(): OrgHub {
  const state = orgHub();
  server.use(signedIn(), ...orgsApi(state));
  return state;
}

describe('data org', () => {
  it('makes an organisation, adds members and lists them, as text and as JSON', async () => {
    const state = hub();
    const made = await data(['org', 'create', 'Acme']);
    expect(made.code, made.err).toBe(0);
    expect(made.out).toContain('made the organisation acme, with you as its admin');
    expect(await data(['org', 'add', 'acme', 'grace', '--role', 'maintainer'])).toMatchObject({
      code: 0,
      out: 'grace is now maintainer of acme\n',
    });
    expect((await data(['org', 'add', 'acme', 'rob', '--role', 'reader'])).code).toBe(0);
    // As the other lists: tab-separated lines in a pipe, a heading over aligned columns on a
    // terminal (the heading was printed in a pipe too, in capitals).
    const lines = await data(['org', 'members', 'acme']);
    expect(lines.out).toBe('ada\tadmin\ngrace\tmaintainer\nrob\treader\n');
    const table = await data(['org', 'members', 'acme'], { tty: true });
    expect(stripVTControlCharacters(table.out)).toBe(
      'user   role\nada    admin\ngrace  maintainer\nrob    reader\n',
    );
    const json = await data(['org', 'members', 'acme', '--json']);
    expect(JSON.parse(json.out)).toEqual(state.orgs.get('acme'));
    const removed = await data(['org', 'remove', 'acme', 'rob', '--json']);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.out)).toEqual({ removed: 'rob' });
  });

  it('says what the hub refuses, exit 1: a taken name, a missing user, the last admin, a stranger', async () => {
    const state = hub();
    state.orgs.set('lab', [{ user: 'grace', role: 'admin' }]);
    const taken = await data(['org', 'create', 'grace']);
    expect(taken.code).toBe(1);
    expect(taken.err).toContain('the name "grace" is taken');
    await data(['org', 'create', 'acme']);
    const ghost = await data(['org', 'add', 'acme', 'ghost', '--role', 'reader']);
    expect(ghost.code).toBe(1);
    expect(ghost.err).toContain('there is no user "ghost" on this hub');
    // An organisation as the member: the argument is wrong (exit 2), and the hub says why.
    const org = await data(['org', 'add', 'acme', 'lab', '--role', 'reader']);
    expect(org.code).toBe(2);
    expect(org.err).toContain(
      'error: org add: "lab" is an organisation: an organisation cannot be a member of another, only users can\n',
    );
    const last = await data(['org', 'remove', 'acme', 'ada']);
    expect(last.code).toBe(1);
    expect(last.err).toContain('ada is the last admin of acme');
    const stranger = await data(['org', 'members', 'lab']);
    expect(stranger.code).toBe(1);
    expect(stranger.err).toContain('no organisation "lab" of yours');
    expect(stranger.out).toBe('');
  });

  it('deletes an organisation once it has no datasets, saying how when it has some', async () => {
    const state = hub();
    state.orgs.set('lab', [{ user: 'grace', role: 'admin' }]);
    await data(['org', 'create', 'acme']);
    state.datasets = new Map([['acme', 2]]);
    const kept = await data(['org', 'delete', 'acme']);
    expect(kept.code).toBe(1);
    expect(kept.err).toContain(
      'acme has 2 datasets: delete each first (data delete acme/DATASET; data list acme lists them), then the organisation',
    );
    expect(kept.out).toBe('');
    const stranger = await data(['org', 'delete', 'lab']);
    expect(stranger.code).toBe(1);
    expect(stranger.err).toContain('no organisation "lab" of yours');
    state.datasets.clear();
    expect(await data(['org', 'delete', 'Acme'])).toMatchObject({
      code: 0,
      out: 'deleted the organisation acme\n',
    });
    expect(state.orgs.has('acme')).toBe(false);
    await data(['org', 'create', 'acme']);
    const json = await data(['org', 'delete', 'acme', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ deleted: 'acme' });
    expect((await data(['org', 'delete', 'a/b'])).code).toBe(2);
  });

  it('refuses malformed names and roles before asking the hub (exit 2), and a refused token (exit 4)', async () => {
    hub();
    expect((await data(['org', 'create', 'a/b'])).code).toBe(2);
    const long = await data(['org', 'create', 'a'.repeat(40)]);
    expect(long.code).toBe(2);
    expect(long.err).toContain('at most 39 characters');
    expect((await data(['org', 'add', 'acme', 'grace', '--role', 'owner'])).code).toBe(2);
    expect((await data(['org', 'add', 'acme', 'grace'])).code).toBe(2);
    server.use(
      signedOut(),
      http.post(`${HUB}/api/orgs`, () => HttpResponse.json({ error: 'sign in' }, { status: 401 })),
    );
    expect((await data(['org', 'create', 'acme'])).code).toBe(4);
  });

  it('shows a member name from the hub escaped, never as terminal control', async () => {
    const state = hub();
    state.orgs.set('acme', [
      { user: 'ada', role: 'admin' },
      { user: 'evil\u001b[2Jname', role: 'reader' },
    ]);
    const listed = await data(['org', 'members', 'acme'], { tty: true });
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain('\u001b[2J');
    // Escaped before it is aligned: the roles stand in one column.
    const [BOLD, PLAIN] = ['\u001b[1m', '\u001b[22m'];
    // The heading's bold is the one escape left.
    const lines = listed.out.replaceAll(BOLD, '').replaceAll(PLAIN, '').trimEnd().split('\n');
    const column = (line: string) => line.search(/(role|admin|reader)$/);
    expect(lines.map(column)).toEqual(lines.map(() => column(lines[0] ?? '')));
  });

  it('never prints what a hub answers to create, add and remove as terminal control', async () => {
    const control = '\u001b]8;;https://evil.test\u0007x\u001b[2J';
    server.use(
      signedIn(),
      http.post(`${HUB}/api/orgs`, () =>
        HttpResponse.json(
          { name: `acme${control}`, members: [{ user: 'ada', role: 'admin' }] },
          { status: 201 },
        ),
      ),
      http.put(`${HUB}/api/orgs/:org/members/:user`, () =>
        HttpResponse.json({ user: `grace${control}`, role: 'reader' }),
      ),
      http.delete(`${HUB}/api/orgs/:org/members/:user`, () =>
        HttpResponse.json({ removed: `rob${control}` }),
      ),
    );
    for (const args of [
      ['org', 'create', 'acme'],
      ['org', 'add', 'acme', 'grace', '--role', 'reader'],
      ['org', 'remove', 'acme', 'rob'],
    ]) {
      const run = await data(args);
      expect(run.code, run.err).toBe(0);
      expect(run.out).not.toContain('\u001b');
      expect(run.out).not.toContain('\u0007');
    }
  });
});

describe('data publish --owner', () => {
  it('tells a reader why it may not publish under the organisation, before uploading anything', async () => {
    const state = hub();
    state.orgs.set('acme', [
      { user: 'grace', role: 'admin' },
      { user: 'ada', role: 'reader' },
    ]);
    const asked: string[] = [];
    server.events.on('request:start', ({ request }) => asked.push(new URL(request.url).pathname));
    const refused = await data(['publish', `${EXAMPLES}/cities`, '--owner', 'acme']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('you are a reader of acme');
    state.orgs.set('lab', [{ user: 'grace', role: 'admin' }]);
    const stranger = await data(['publish', `${EXAMPLES}/cities`, '--owner', 'lab']);
    expect(stranger.code).toBe(1);
    expect(stranger.err).toContain('no organisation "lab" that you are a member of');
    // Another user: no one publishes under another user's name.
    const user = await data(['publish', `${EXAMPLES}/cities`, '--owner', 'Grace']);
    expect(user.code).toBe(1);
    expect(user.err).toContain(
      `error: publish: "grace" is a user, not an organisation: you publish under your own name or an organisation's, never under another user's\n`,
    );
    const nobody = await data(['publish', `${EXAMPLES}/cities`, '--owner', 'nobody']);
    expect(nobody.code).toBe(1);
    expect(nobody.err).toContain('there is no user or organisation "nobody" on the hub');
    // Asked who it is, the members and whose the name is, nothing more: no upload, no service token.
    expect(new Set(asked)).toEqual(
      new Set([
        '/auth/check',
        '/api/orgs/acme/members',
        '/api/orgs/lab/members',
        '/api/orgs/grace/members',
        '/api/orgs/nobody/members',
        '/auth/resolve',
      ]),
    );
    server.events.removeAllListeners();
  });
});
