/**
 * `data publisher add|list|remove` in-process against the hub's /api/publishers (msw), and
 * `data publish` in CI with no token: the job's ID token (GitHub Actions' endpoint, or
 * DATA_ID_TOKEN) traded at /auth/trusted, a refusal printed escaped with exit 4.
 */
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { signedIn } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';
import { presignEcho, publishingHub, uploadsAccepted } from '../helpers/msw/publish.js';
import {
  actionsTokenEndpoint,
  publisherHub,
  publishersApi,
  trustedTrade,
  type PublisherHub,
} from '../helpers/msw/publishers.js';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const GITHUB = 'https://token.actions.githubusercontent.com';
const CITIES = join(import.meta.dirname, '../../examples/cities');

function data(args: string[], env: Record<string, string> = {}, tty = false) {
  return runCli(args, {
    tty,
    env: { DATA_API: HUB, DATA_TOKEN: 'session-token', ...env },
    fetch: globalThis.fetch,
  });
}

function hub(): PublisherHub {
  const state = publisherHub();
  server.use(signedIn(), ...publishersApi(state));
  return state;
}

describe('data publisher', () => {
  it('adds a publisher with its claims, lists it and removes it', async () => {
    const state = hub();
    const args = ['--issuer', GITHUB, '--claim', 'repository=ada/cities'];
    const added = await data([
      'publisher',
      'add',
      'ada/cities',
      ...args,
      '--claim',
      'ref=refs/heads/main',
    ]);
    expect(added.code).toBe(0);
    expect(added.out).toBe(
      `p1\tada/cities\t${GITHUB}\trepository=ada/cities,ref=refs/heads/main\n`,
    );
    expect(state.publishers[0]?.claims).toEqual({
      repository: 'ada/cities',
      ref: 'refs/heads/main',
    });
    expect(state.seen).toEqual(['session-token']);

    const listed = await data(['publisher', 'list', 'ada/cities']);
    expect(listed.code).toBe(0);
    expect(listed.out).toBe(
      `p1\t${GITHUB}\trepository=ada/cities,ref=refs/heads/main\t2026-11-26 21:00Z\tada\n`,
    );
    const json = await data(['publisher', 'list', 'ada/cities', '--json']);
    expect(JSON.parse(json.out)).toEqual(state.publishers);
    const table = await data(['publisher', 'list', 'ada/cities'], {}, true);
    // eslint-disable-next-line no-control-regex
    expect(table.out.replace(/\u001b\[\d+m/g, '')).toMatch(/^id +issuer +claims +added +by\n/);

    const removed = await data(['publisher', 'remove', 'ada/cities', 'p1']);
    expect(removed.code).toBe(0);
    expect(removed.out).toContain('removed the publisher p1 of ada/cities');
    expect(state.publishers).toEqual([]);
    const again = await data(['publisher', 'remove', 'ada/cities', 'p1']);
    expect(again.code).toBe(1);
    expect(again.err).toContain('no trusted publisher "p1"');
  });

  it("says the hub's refusal of the argument, a usage error (exit 2), for an issuer it does not trust", async () => {
    const state = hub();
    const refused = await data([
      'publisher',
      'add',
      'ada/cities',
      '--issuer',
      'https://issuer.example.org',
      '--claim',
      'repository=ada/cities',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    expect(refused.err).toContain(`the issuer must be one this hub trusts: ${GITHUB}`);
    expect(state.publishers).toEqual([]);
  });

  it('says a publisher added again is there already, exit 0, and adds none', async () => {
    const state = hub();
    const args = ['publisher', 'add', 'ada/cities', '--issuer', GITHUB];
    const claims = ['--claim', 'repository=ada/cities', '--claim', 'ref=refs/heads/main'];
    expect((await data([...args, ...claims])).code).toBe(0);
    // The claims in another order are the same publisher.
    const again = await data([...args, ...claims.slice(2), ...claims.slice(0, 2)]);
    expect(again.code).toBe(0);
    expect(again.out).toBe(
      `p1\tada/cities\t${GITHUB}\trepository=ada/cities,ref=refs/heads/main\n`,
    );
    expect(again.err).toBe(
      'note: ada/cities already has this trusted publisher (p1): nothing added\n',
    );
    const json = await data([...args, ...claims, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({ id: 'p1', added: false });
    expect(state.publishers).toHaveLength(1);
    const other = await data([...args, '--claim', 'repository=ada/towns', '--json']);
    expect(JSON.parse(other.out)).toMatchObject({ id: 'p2', added: true });
  });

  it('is a usage error, exit 2, without a claim, with a bad claim, dataset or issuer', async () => {
    const state = hub();
    for (const args of [
      ['ada/cities', '--issuer', GITHUB],
      ['ada/cities', '--issuer', GITHUB, '--claim', 'repository'],
      ['ada/cities', '--issuer', GITHUB, '--claim', '=x'],
      ['ada/cities', '--issuer', GITHUB, '--claim', 'a=1', '--claim', 'a=2'],
      ['cities', '--issuer', GITHUB, '--claim', 'repository=ada/cities'],
      ['ada/cities', '--issuer', 'not a url', '--claim', 'repository=ada/cities'],
      // Claims the hub would refuse, found by data first with the hub's own rule (core's).
      ['ada/cities', '--issuer', GITHUB, '--claim', 'ref=refs/heads/main'],
      ['ada/cities', '--issuer', GITHUB, '--claim', 'repository=ada/cities', '--claim', 'jti=x'],
      ['ada/cities', '--issuer', GITHUB, '--claim', 'a b=x', '--claim', 'repository=ada/cities'],
    ]) {
      const refused = await data(['publisher', 'add', ...args]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.out).toBe('');
    }
    expect(state.seen).toEqual([]);
  });
});

describe('data publish in CI with no token', () => {
  const requestUrl = 'https://pipelines.actions.test/idtoken?api-version=2.0';

  function ciHub(good: string, owner = 'ada') {
    const state = publisherHub();
    const asked: { audience: string | null; authorization: string | null }[] = [];
    const seen: string[] = [];
    server.use(
      presignEcho(),
      actionsTokenEndpoint(requestUrl, 'request-token', asked),
      trustedTrade(state, good),
      http.get(`${HUB}/auth/check`, ({ request }) => {
        seen.push(request.headers.get('auth-token') ?? '');
        return HttpResponse.json({ authenticated: true, profile: { id: 'u1', username: owner } });
      }),
      ...publishingHub(),
      uploadsAccepted(),
    );
    return { state, asked, seen };
  }

  it('says the hub refused the token it traded, when it does: exit 4, to run the job again', async () => {
    ciHub(`id-token-for:${HUB}`);
    server.use(
      http.get(`${HUB}/auth/check`, () =>
        HttpResponse.json({ error: 'the token was refused' }, { status: 401 }),
      ),
    );
    const published = await data(['publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      ACTIONS_ID_TOKEN_REQUEST_URL: requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
    });
    expect(published.code).toBe(4);
    expect(published.err).toContain(
      `error: ${HUB} refused the token it gave for this GitHub Actions job's ID token: it lives 15 minutes, and ends with its trusted publisher\nhint: run the job again: it trades a new ID token\n`,
    );
  });

  it("trades the GitHub Actions job's ID token, for the hub as audience, and publishes", async () => {
    const { state, asked, seen } = ciHub(`id-token-for:${HUB}`);
    const published = await data(['--json', 'publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      ACTIONS_ID_TOKEN_REQUEST_URL: requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
    });
    expect(published.code, published.err).toBe(0);
    expect(asked).toEqual([{ audience: HUB, authorization: 'Bearer request-token' }]);
    expect(state.trades).toEqual([{ token: `id-token-for:${HUB}`, dataset: 'ada/world-cities' }]);
    expect(seen).toEqual(['trusted-hub-token']);
    expect(JSON.parse(published.out)).toMatchObject({ state: 'SUCCEEDED' });
    expect(published.err).toContain('as its trusted publisher');
    expect(published.err).not.toContain('id-token-for');
    expect(published.err).not.toContain('request-token');
  });

  it('takes the ID token from DATA_ID_TOKEN, and a stored token before either', async () => {
    const { state } = ciHub('gitlab-id-token');
    const published = await data(['publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      DATA_ID_TOKEN: 'gitlab-id-token',
    });
    expect(published.code, published.err).toBe(0);
    expect(state.trades).toEqual([{ token: 'gitlab-id-token', dataset: 'ada/world-cities' }]);
    const withToken = await data(['publish', CITIES], { DATA_ID_TOKEN: 'gitlab-id-token' });
    expect(withToken.code, withToken.err).toBe(0);
    expect(state.trades).toHaveLength(1);
  });

  it("prints the hub's refusal, escaped, and exits 4, uploading nothing", async () => {
    const { state } = ciHub('another-token');
    let uploads = 0;
    server.use(
      http.post(`${HUB}/rawstore/authorize`, () => {
        uploads++;
        return HttpResponse.json({}, { status: 500 });
      }),
    );
    const refused = await data(['publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      DATA_ID_TOKEN: 'gitlab-id-token',
    });
    expect(refused.code).toBe(4);
    expect(refused.err).toContain(
      "refused the CI job's ID token: no trusted publisher of cities matches this token's claims (repository=ada/cities, ref=refs/heads/dev\\x1b[2J)",
    );
    expect(refused.err).not.toContain('\u001b[2J');
    expect(refused.err).toContain(
      "hint: a trusted publisher of the dataset must name this CI's issuer",
    );
    expect(refused.err).not.toContain('gitlab-id-token');
    expect(state.trades).toHaveLength(1);
    expect(uploads).toBe(0);
  });

  it('names the owner of --owner in the trade', async () => {
    const { state, seen } = ciHub('gitlab-id-token', 'acme');
    const published = await data(['--json', 'publish', CITIES, '--owner', 'Acme'], {
      DATA_TOKEN: '',
      DATA_ID_TOKEN: 'gitlab-id-token',
    });
    expect(published.code, published.err).toBe(0);
    expect(state.trades).toEqual([{ token: 'gitlab-id-token', dataset: 'acme/world-cities' }]);
    expect(seen).toEqual(['trusted-hub-token']);
    expect(JSON.parse(published.out)).toMatchObject({ owner: 'acme', state: 'SUCCEEDED' });
  });

  it('is a usage error, exit 2, without the owner, asking for no ID token and trading nothing', async () => {
    const { state, asked } = ciHub(`id-token-for:${HUB}`);
    const refused = await data(['publish', CITIES], {
      DATA_TOKEN: '',
      ACTIONS_ID_TOKEN_REQUEST_URL: requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
    });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("trusted publishing needs the dataset's owner");
    // The dataset's name is filled in: only its owner is missing.
    expect(refused.err).toContain(
      'hint: data publish --owner OWNER (as `data publisher add OWNER/world-cities` named it)\n',
    );
    expect(asked).toEqual([]);
    expect(state.trades).toEqual([]);
  });

  it("refuses a traded token for another owner's dataset, uploading nothing", async () => {
    ciHub('gitlab-id-token');
    let uploads = 0;
    server.use(
      http.post(`${HUB}/auth/trusted`, () =>
        HttpResponse.json({
          token: 'trusted-hub-token',
          dataset: 'eve/world-cities',
          expires: '2026-11-26T21:15:00.000Z',
        }),
      ),
      http.post(`${HUB}/rawstore/authorize`, () => {
        uploads++;
        return HttpResponse.json({}, { status: 500 });
      }),
    );
    const refused = await data(['publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      DATA_ID_TOKEN: 'gitlab-id-token',
    });
    expect(refused.code).toBe(3);
    expect(refused.err).toContain('not for a dataset of ada');
    expect(uploads).toBe(0);
  });

  it('never sends the ID token on where the hub redirects its trade', async () => {
    const { state } = ciHub('gitlab-id-token');
    const elsewhere: string[] = [];
    server.use(
      http.post(
        `${HUB}/auth/trusted`,
        () =>
          new HttpResponse(null, {
            status: 307,
            headers: { Location: 'https://collector.example/steal' },
          }),
      ),
      http.post('https://collector.example/steal', async ({ request }) => {
        elsewhere.push(await request.text());
        return HttpResponse.json({
          token: 'trusted-hub-token',
          dataset: 'ada/world-cities',
          expires: '2026-11-26T21:15:00.000Z',
        });
      }),
    );
    const refused = await data(['publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      DATA_ID_TOKEN: 'gitlab-id-token',
    });
    expect(refused.code).toBe(3);
    expect(refused.err).toContain('a redirect');
    expect(refused.err).not.toContain('gitlab-id-token');
    expect(elsewhere).toEqual([]);
    expect(state.trades).toEqual([]);
  });

  it('exits 4 when the Actions endpoint refuses the request token (no id-token: write)', async () => {
    ciHub('x');
    const refused = await data(['publish', CITIES, '--owner', 'ada'], {
      DATA_TOKEN: '',
      ACTIONS_ID_TOKEN_REQUEST_URL: requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'wrong',
    });
    expect(refused.code).toBe(4);
    expect(refused.err).toContain('id-token: write');
  });
});
